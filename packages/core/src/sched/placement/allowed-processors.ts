import { isChunk } from '../../chunk/chunk.js';
import { SchedulingError } from '../../errors/errors.js';
import { describeTask } from '../../errors/task-failed-error.js';
import type { ArgType, Processor } from '../../processor/processor.js';
import {
  type AbstractScope,
  AnyScope,
  constrain,
  DefaultScope,
  ExactScope,
  IntersectionScope,
  InvalidScope,
  UnionScope,
} from '../../scope/index.js';
import { argTypesOf } from '../../task/arg-types-of.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { dataHome } from './data-home.js';
import type { ProcSlot } from './proc-slot.js';

const DEFAULT = new DefaultScope();
const ANY = new AnyScope();

/** A scope that, with the reason it is what it is, explains a placement failure. */
interface Narrowed {
  scope: AbstractScope;
  /** Set when a non-default piece (result scope, a chunk) narrowed the compute scope. */
  narrowed: boolean;
}

function narrow(acc: Narrowed, next: AbstractScope, what: string, task: DTask<unknown>): void {
  if (next instanceof AnyScope) return;
  const joined = constrain(acc.scope, next);
  if (joined instanceof InvalidScope) {
    throw new SchedulingError(
      `Task ${describeTask(task)} cannot run anywhere: ${describeScopes(acc)} and ${what} ${next} ` +
        'do not intersect. Widen one of them, or move the data.',
    );
  }
  acc.scope = joined;
  acc.narrowed = true;
}

function describeScopes(acc: Narrowed): string {
  return acc.narrowed ? `the scopes so far (${acc.scope})` : `its compute scope ${acc.scope}`;
}

/**
 * The scope a task may run in (seed 004): its effective compute scope (`computeScope`, else
 * `scope`, else `DefaultScope`) ∩ its `resultScope` ∩ the scopes of its `Chunk` arguments,
 * its `Chunk` function, and the result scopes of its task arguments (a chunk pinned to its
 * processor, a `mutable`, counts as naming it), and the processors holding the data of the
 * arguments it writes in place (`inPlaceArgs`; `here`, the scheduler's thread, holds results
 * kept on it). Data written in place where the scope so far does not reach (on this thread: a
 * result held here, a chunk in its storage; or on a worker) does not narrow it when the task
 * has a `returnArgs.apply`: it is copied to where the task runs and its written copy comes
 * back (`markMovedArgs`), to be written where the data is. Throws `SchedulingError`
 * naming the scopes that clash when the intersection is empty. A default compute scope is
 * kept as an unsimplified `DefaultScope` part, which `allowedSlots` judges per processor
 * (`constrain` alone would drop opt-in processors that declare the function compatible).
 */
export function taskScope(task: DTask<unknown>, here?: Processor): AbstractScope {
  const o = task.options;
  const compute = o.computeScope ?? o.scope;
  const acc: Narrowed = { scope: compute ?? ANY, narrowed: false };
  if (o.resultScope) narrow(acc, o.resultScope, 'its result scope', task);
  if (isChunk(task.fn)) narrow(acc, task.fn.scope, 'the scope of its function chunk', task);
  const args = task.args;
  let pinned = false;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null) continue;
    if (isChunk(a)) {
      const what =
        a.handle.pieceFor === undefined
          ? `the scope of chunk argument ${i}`
          : `the processors holding pieces of chunk argument ${i} (a shard),`;
      narrow(acc, a.scope, what, task);
      if (a.handle.pinned === true) pinned = true;
    } else if (isDTask(a)) {
      const rs = a.options.resultScope;
      if (rs) narrow(acc, rs, `the result scope of argument ${i} (task #${a.id})`, task);
    }
  }
  // Arguments written in place: the task runs where their data is.
  for (const i of o.inPlaceArgs ?? []) {
    const home = dataHome(args[i], here);
    if (home === undefined) continue;
    if (movable(task, acc.scope, home)) continue;
    narrow(
      acc,
      new ExactScope(home),
      `the processor holding argument ${i}, written in place,`,
      task,
    );
    pinned = true;
  }
  // Data pinned to its processor (a mutable, or written in place) names that processor: a
  // default-scoped task taking it runs there even outside DefaultScope (the main thread, once
  // threads exist).
  if (compute !== undefined || pinned) return acc.scope;
  return acc.narrowed ? new IntersectionScope([DEFAULT, acc.scope]) : DEFAULT;
}

/**
 * Whether in-place argument `i`, whose data is on `home` (this thread, or a worker) outside
 * `scope`, may travel to the task and back instead (`markMovedArgs`): the task says how to
 * write a copy back (`returnArgs.apply`).
 */
function movable(task: DTask<unknown>, scope: AbstractScope, home: Processor): boolean {
  if (task.options.returnArgs?.apply === undefined) return false;
  return constrain(scope, new ExactScope(home)) instanceof InvalidScope;
}

/**
 * Seed 004: the result of a task whose function is a `Chunk` lives within the chunk's scope
 * (∩ its `resultScope`), so its dependents run there. Called by the scheduler at placement,
 * before the chunk is replaced by the function it holds; does nothing for a plain function.
 */
export function pinResultToFunctionChunk(task: DTask<unknown>): void {
  const fn = task.fn;
  if (!isChunk(fn) || fn.scope instanceof AnyScope) return;
  const rs = task.options.resultScope;
  // Object.assign, not a spread: see mergeOptions.
  task.options = Object.assign({}, task.options, {
    resultScope: rs ? constrain(rs, fn.scope) : fn.scope,
  });
}

/**
 * Whether `scope` admits `proc`. `DefaultScope`, alone or inside unions and intersections,
 * admits threads enabled by default and every other processor; those run only the functions
 * they declare compatible (API.md: a GPU runs tasks whose scope names it or whose function it
 * declares compatible).
 */
function admits(scope: AbstractScope, proc: ProcSlot['proc']): boolean {
  if (scope instanceof DefaultScope) return proc.kind !== 'thread' || proc.defaultEnabled;
  if (scope instanceof IntersectionScope) return scope.scopes.every((s) => admits(s, proc));
  if (scope instanceof UnionScope) return scope.scopes.some((s) => admits(s, proc));
  return scope.contains(proc);
}

/**
 * Filters the context's processors down to those that may run `task`: inside its scope (for
 * the default scope: enabled by default, or declaring the function compatible) and compatible.
 * Throws `SchedulingError` "No processors available, try widening scope" when none is left.
 */
export function allowedSlots(
  task: DTask<unknown>,
  scope: AbstractScope,
  slots: readonly ProcSlot[],
): ProcSlot[] {
  let argTypes: ArgType[] | undefined;
  const out: ProcSlot[] = [];
  for (const slot of slots) {
    if (slot.removed) continue;
    const proc = slot.proc;
    if (!admits(scope, proc)) continue;
    // Threads run every JS function; other processors (GPUs, ...) decide per function.
    if (proc.kind !== 'thread') {
      argTypes ??= argTypesOf(task.args);
      if (!proc.isCompatible(task.options, task.fn, argTypes)) continue;
    }
    out.push(slot);
  }
  if (out.length === 0) {
    const existing = slots.filter((s) => !s.removed).map((s) => s.proc.id);
    const listed =
      existing.length > 20 ? [...existing.slice(0, 20), `… (${existing.length} in all)`] : existing;
    throw new SchedulingError(
      `No processors available, try widening scope (task ${describeTask(task)}, scope ${shortScope(scope)}); ` +
        `none of the processors that exist matched it: ${listed.join(', ') || 'none'}`,
    );
  }
  return out;
}

/** A scope as its error message shows it: a union of hundreds of members is cut short. */
function shortScope(scope: AbstractScope): string {
  const text = String(scope);
  return text.length <= 400 ? text : `${text.slice(0, 400)}… (${text.length} characters in all)`;
}

/**
 * `error` (no processor for `task`), told why: the processors its scope names that were
 * removed with a reason (a worker process that could not be replaced) are named with it.
 */
export function explainRemoved(
  task: DTask<unknown>,
  error: unknown,
  slots: Iterable<ProcSlot>,
): unknown {
  if (!SchedulingError.isInstance(error)) return error;
  let scope: AbstractScope;
  try {
    scope = taskScope(task);
  } catch {
    return error;
  }
  const why: string[] = [];
  for (const slot of slots) {
    if (slot.removed && slot.removedReason !== undefined && admits(scope, slot.proc))
      why.push(`${slot.proc.id} was removed: ${slot.removedReason}`);
  }
  if (why.length === 0) return error;
  return new SchedulingError(`${(error as Error).message}. ${why.join('; ')}`);
}

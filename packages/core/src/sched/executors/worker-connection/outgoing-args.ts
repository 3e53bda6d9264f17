import { type Chunk, isChunk } from '../../../chunk/chunk.js';
import { InputLostError, WorkerLostError } from '../../../errors/errors.js';
import type { Processor } from '../../../processor/processor.js';
import { isLent, LENT_HOLDER, type LentChunk } from '../../../protocol/lent-chunk.js';
import { type ArgRefs, AWAITED } from '../../../protocol/protocol.js';
import { type DTask, isDTask } from '../../../task/dtask.js';
import { isRemoteResult, type RemoteResult } from '../../../task/remote-result.js';
import { TaskState } from '../../../task/task-state.js';
import { chunkOfTask } from '../../completion/chunk-of-task.js';
import { resultTaskOf } from '../../ready/pending-task-of.js';

/** The runtime a task is sent to, as argument planning sees it. */
export interface ArgTarget {
  /** The processor the runtime runs tasks as. */
  readonly processor: Processor;
  /** Whether `v` is held by a runtime of the same context (another context's never is). */
  linked(v: RemoteResult): boolean;
  /**
   * How that runtime finds `v` (a result of its own context) by itself: the holder (`''` when
   * it holds it, else a peer's id) and the holder's key, or undefined when `v` must come
   * through this thread.
   */
  refOf(v: RemoteResult): [holder: string, key: number] | undefined;
  /** Lends `chunk` to the runtime for a `meta: true` task (see `LENT_HOLDER`). */
  lend(chunk: Chunk<unknown>): LentChunk;
}

/** What `planArgs` decided for the arguments it was given. */
export interface ArgPlan {
  /** Arguments the runtime finds by reference (`args` holds null there). */
  refs: ArgRefs | undefined;
  /** Arguments being brought to this thread first; `args` gets their values when they settle. */
  waits: Promise<unknown>[] | undefined;
  /**
   * An input whose result was lost with its worker, or that runs again elsewhere (the task
   * must wait for it first), or -1.
   */
  lost: number;
}

/**
 * Decides how each argument at `indices` of `task` travels to `target`, writing values into
 * `args` (a copy of `task.args`): by value; by reference, to a result held by the runtime or
 * a peer, or being made there (a task sent ahead waits for it there); or after being brought
 * here (chunks, results on their way here, other contexts' results). References are decided
 * from the inputs' state at the call: after waiting, plan the referenced ones again, since
 * a result may have moved or been dropped meanwhile.
 */
export function planArgs(
  task: DTask<unknown>,
  target: ArgTarget,
  args: unknown[],
  indices?: readonly number[],
): ArgPlan {
  const plan: ArgPlan = { refs: undefined, waits: undefined, lost: -1 };
  const meta = task.options.meta === true;
  const n = indices === undefined ? task.args.length : indices.length;
  for (let at = 0; at < n; at++) {
    const i = indices === undefined ? at : indices[at];
    let a = task.args[i];
    if (meta) {
      // Dagger's meta: the task gets Chunk handles, lent to it by this thread.
      const chunk = isChunk(a) ? a : isDTask(a) ? chunkOfFinished(a) : undefined;
      if (chunk === undefined) continue;
      const prior = args[i];
      const lent = isLent(prior) ? prior : target.lend(chunk);
      args[i] = lent;
      (plan.refs ??= []).push([i, lent.key, LENT_HOLDER]);
      continue;
    }
    if (isChunk(a)) {
      // A chunk that is a task's result (a mutable's) goes as that result: by reference there.
      const held = resultTaskOf(a);
      if (held === undefined) {
        (plan.waits ??= []).push(a.fetch().then((x) => (args[i] = x)));
        continue;
      }
      a = held;
    }
    if (!isDTask(a)) continue;
    const v = a.value;
    if (isRemoteResult(v)) {
      if (!target.linked(v)) {
        // Another context's result: its owner fetches it, and recomputes it if it was lost.
        (plan.waits ??= []).push(a.fetch().then((x) => (args[i] = x)));
        continue;
      }
      if (v.isLost()) {
        plan.lost = i;
        return plan;
      }
      const ref = v.moving === undefined ? target.refOf(v) : undefined;
      if (ref !== undefined) {
        (plan.refs ??= []).push([i, ref[1], ref[0]]);
        args[i] = null;
      } else {
        // On its way to this thread (or held where the runtime has no link): a copy from here.
        // Its holder may die before the copy comes: the input is lost, not the task failed.
        (plan.waits ??= []).push(
          v.fetch().then(
            (x) => (args[i] = x),
            (error) => {
              throw WorkerLostError.isInstance(error)
                ? new InputLostError(`Input ${i} of task #${task.id} was lost with its worker`, {
                    cause: error,
                  })
                : error;
            },
          ),
        );
      }
    } else if (a.state < TaskState.Done) {
      if (a.proc !== target.processor) {
        // Not made there, and not made yet: its result was lost and it runs again (elsewhere,
        // or queued), while this task waited for another input. Sending its value would give
        // the task `undefined` in its place: the task goes back to wait for the new run.
        plan.lost = i;
        return plan;
      }
      // Sent ahead: the input is being made on that runtime; the task waits for it there.
      (plan.refs ??= []).push([i, a.id, '']);
      args[i] = null;
    } else args[i] = v;
  }
  return plan;
}

/** Whether any argument of `task` is a task or a chunk (else the arguments travel as they are). */
export function hasTaskOrChunkArgs(task: DTask<unknown>): boolean {
  for (const a of task.args) {
    if (typeof a !== 'object' || a === null) continue;
    if (isDTask(a) || isChunk(a)) return true;
  }
  return false;
}

/** The chunk a finished task's `fetch({ raw: true })` gives (its result's, or the one it returned). */
function chunkOfFinished(t: DTask<unknown>): Chunk<unknown> | undefined {
  if (t.state !== TaskState.Done) return undefined;
  return isChunk(t.value) ? t.value : chunkOfTask(t);
}

/** The inputs of `task` that `refs` refers to while they are still being made (sent ahead). */
export function inputsBeingMade(task: DTask<unknown>, refs: ArgRefs | undefined): DTask<unknown>[] {
  const made: DTask<unknown>[] = [];
  for (const [i] of refs ?? []) {
    const a = task.args[i];
    if (isDTask(a) && a.state < TaskState.Done) made.push(a);
  }
  return made;
}

/**
 * `refs` with a reference (index -1: no argument takes it) to each task `task` waits for
 * without its value (`TaskExtra.after`, sent ahead by `sendAhead`) that is still being made on
 * `processor`: the runtime there starts `task` once they have finished.
 */
export function withAwaitedRefs(
  task: DTask<unknown>,
  refs: ArgRefs | undefined,
  processor: Processor,
): ArgRefs | undefined {
  const after = task.extra?.after;
  if (after === undefined) return refs;
  for (const b of after) {
    if (!isDTask(b) || b.state >= TaskState.Done || b.proc !== processor) continue;
    (refs ??= []).push([AWAITED, b.id, '']);
  }
  return refs;
}

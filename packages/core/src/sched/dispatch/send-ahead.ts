import { isChunk } from '../../chunk/chunk.js';
import { loggingState } from '../../log/event-log.js';
import { type DTask, isDTask, taskExtra } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { logStart } from '../log-task-events.js';
import { candidatesOf } from '../placement/candidates-of.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';

/** `canSendAhead`'s answers: not now; yes, its inputs are made there; yes, it waits there too. */
const NO = 0;
const INPUTS = 1;
const ORDERED = 2;

/**
 * Places the dependents of `root` (just sent to `slot`'s worker) on the same worker at once
 * when every input they wait for is being made there: the worker starts each the moment its
 * inputs exist, so a chain costs no round trip per task (local successor execution). A task
 * whose task queue lets workers await its ordering (`TaskFlags.AwaitsOnWorkers`, a datadeps
 * region) and that waits only for its upstream here goes too, but only to keep that worker
 * from going idle: when `root` is all it holds, and one such task (the first of them, in the
 * queue's submission order). Its siblings, and its own successors, are placed as they become
 * ready, so a fan-out is still shared among the workers and no worker is handed a long chain.
 */
export function sendAhead(s: SchedulerState, root: DTask<unknown>, slot: ProcSlot): void {
  // Only inputs sent in this same cascade qualify: they travel in the same batch, so the
  // worker learns of their consumers before it runs them and keeps even small results. The set
  // and the stack are made once a dependent qualifies: most roots have none that does.
  let cascade: Set<DTask<unknown>> | undefined;
  let stack: DTask<unknown>[] | undefined;
  let upstream: DTask<unknown> | undefined = root;
  do {
    const d: DTask<unknown>['dependents'] = upstream.dependents;
    if (d === undefined) continue;
    const many = Array.isArray(d);
    let ordered = false;
    for (let k = 0; k < (many ? d.length : 1); k++) {
      const next = many ? d[k] : (d as DTask<unknown>);
      // Whether an ORDERED task may go now: none went for this upstream, and root is all the
      // worker holds (looked at first: most dependents of a busy worker's task stop there).
      const mayOrder = !ordered && slot.inFlight <= (root.options.occupancy ?? 1);
      const how = canSendAhead(s, next, slot, root, cascade, upstream, mayOrder);
      if (how === NO) continue;
      if (how === ORDERED) {
        ordered = true;
        taskExtra(next).after = [upstream];
      }
      cascade ??= new Set([root]);
      cascade.add(next);
      send(s, next, slot);
      (stack ??= []).push(next);
    }
  } while ((upstream = stack?.pop()) !== undefined);
}

/** Sends `next` to `slot`'s worker ahead of its inputs (see `sendAhead`). */
function send(s: SchedulerState, next: DTask<unknown>, slot: ProcSlot): void {
  next.flags |= TaskFlags.SentAhead | TaskFlags.Counted;
  next.proc = slot.proc;
  next.state = TaskState.Running;
  next.estimate = s.costs.estimateRun(next.fn, next.args.length);
  slot.inFlight += next.options.occupancy ?? 1;
  slot.load += next.estimate;
  slot.sentLoad += next.estimate;
  s.running.set(next.id, next);
  if (loggingState.enabled) logStart(next, slot.proc);
  slot.executor.run(next, slot.proc, s.sink);
}

/**
 * Whether `task`, a dependent of `upstream` (`root` or one of `cascade`), may go ahead to
 * `slot`'s worker: every input it waits for is being made there, sent in this cascade (`root`,
 * or one of `cascade` when any other was sent) — `INPUTS`; or, when one ordered task may go
 * for `upstream` (`mayOrder`), `task` is ordered by its queue (`AwaitsOnWorkers`), takes no
 * task argument, waits only for `upstream`, and neither copies data in or out (the worker's
 * order is then the memory's order: they share it) — `ORDERED`.
 */
function canSendAhead(
  s: SchedulerState,
  task: DTask<unknown>,
  slot: ProcSlot,
  root: DTask<unknown>,
  cascade: Set<DTask<unknown>> | undefined,
  upstream: DTask<unknown>,
  mayOrder: boolean,
): number {
  if (task.state !== TaskState.Pending || typeof task.fn !== 'function') return NO;
  // `task` waits for `upstream` (it is one of its dependents), which is not done: unless it
  // takes `upstream` as an argument, that wait is not an argument's, so only `ORDERED` may
  // answer yes. Most dependents of a region task stop here (they wait by their queue's
  // order), without the arguments' walk below.
  if (!mayOrder && !task.args.includes(upstream)) return NO;
  return canGoThere(s, task, slot, root, cascade, upstream, mayOrder);
}

/**
 * `canSendAhead`'s answer for a task past its quick refusals: its arguments walked, then its
 * options and placement. Apart from the quick refusals, so that the check run for every
 * dependent is a few bytes of bytecode, which V8 optimises after fewer calls.
 */
function canGoThere(
  s: SchedulerState,
  task: DTask<unknown>,
  slot: ProcSlot,
  root: DTask<unknown>,
  cascade: Set<DTask<unknown>> | undefined,
  upstream: DTask<unknown>,
  mayOrder: boolean,
): number {
  // Inputs it still waits for that are arguments; any other wait (a task queue's extra
  // dependency) is unknown to the worker, so it is not sent ahead, unless the queue lets
  // workers await it (`ORDERED`). Looked at before the options: reading an options object,
  // whose shapes vary from task to task, costs more than reading the arguments.
  let argWaits = 0;
  let taskArgs = 0;
  for (const a of task.args) {
    if (typeof a !== 'object' || a === null) continue;
    if (!isDTask(a)) {
      if (isChunk(a)) return NO;
      continue;
    }
    taskArgs++;
    // A streaming input's value is substituted on this thread when its stream ends.
    if ((a.flags & TaskFlags.Streaming) !== 0) return NO;
    if (a.state !== TaskState.Done) argWaits++;
    if (a.state === TaskState.Done) {
      const v = a.value;
      // A result lost with its worker must be recomputed first (see waitForLostInputs). One on
      // its way to this thread, or another context's, would hold the task's message back
      // until it came, and then the inputs being made on the worker could be gone already
      // (regression: such a task waited forever for a small result its input had let go).
      if (isRemoteResult(v) && (v.isLost() || v.moving !== undefined)) return NO;
      if (a.owner !== s) return NO;
      continue;
    }
    if (a.state !== TaskState.Running || a.proc !== slot.proc) return NO;
    if (a !== root && cascade?.has(a) !== true) return NO;
  }
  let how = INPUTS;
  if (argWaits !== task.waiting) {
    if (!mayOrder || !awaitsThere(task, taskArgs, upstream)) return NO;
    how = ORDERED;
  }
  const o = task.options;
  if ((task.flags & TaskFlags.LocalOnly) !== 0 || o.syncdeps !== undefined) return NO;
  if (o.signal !== undefined || o.restore !== undefined || o.meta === true) return NO;
  // Placed where the data it writes is, which is known once its inputs have finished.
  if (o.inPlaceArgs !== undefined) return NO;
  try {
    return candidatesOf(s, task).includes(slot) ? how : NO;
  } catch {
    return NO;
  }
}

/**
 * Whether `task` (ordered by its queue) may wait on the worker for `upstream` alone, which is
 * being made there: it waits for nothing else (`upstream`, not done, is one of its waits), it
 * takes no task argument (its message then leaves in this very batch: one with inputs to bring
 * here first could leave after `upstream` ended there), and no copy of data stands between
 * them: `task` gets no copy made here (`sendArgs`) and writes back none (`returnArgs`), nor does
 * `upstream`, which writes no data held elsewhere either (a copy made now would miss its writes,
 * which come back here after it ends).
 */
function awaitsThere(task: DTask<unknown>, taskArgs: number, upstream: DTask<unknown>): boolean {
  if ((task.flags & TaskFlags.AwaitsOnWorkers) === 0 || task.waiting !== 1 || taskArgs > 0) {
    return false;
  }
  if (copiesData(task) || copiesData(upstream)) return false;
  return upstream.options.inPlaceArgs === undefined;
}

/** Whether `task`'s arguments travel as copies made here, or come back to be written here. */
function copiesData(task: DTask<unknown>): boolean {
  const o = task.options;
  return o.sendArgs !== undefined || o.returnArgs !== undefined;
}

import { isChunk } from '../../chunk/chunk.js';
import { loggingState } from '../../log/event-log.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { logStart } from '../log-task-events.js';
import { candidatesOf } from '../placement/candidates-of.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';

/**
 * Places the dependents of `root` (just sent to `slot`'s worker) on the same worker at once
 * when every input they wait for is being made there: the worker starts each the moment its
 * inputs exist, so a chain costs no round trip per task (local successor execution).
 */
export function sendAhead(s: SchedulerState, root: DTask<unknown>, slot: ProcSlot): void {
  // Only inputs sent in this same cascade qualify: they travel in the same batch, so the
  // worker learns of their consumers before it runs them and keeps even small results. The set
  // and the stack are made once a dependent qualifies: most roots have none that does (a
  // datadeps region's tasks wait for each other through extra dependencies).
  let cascade: Set<DTask<unknown>> | undefined;
  let stack: DTask<unknown>[] | undefined;
  let upstream: DTask<unknown> | undefined = root;
  do {
    const d: DTask<unknown>['dependents'] = upstream.dependents;
    if (d === undefined) continue;
    const many = Array.isArray(d);
    for (let k = 0; k < (many ? d.length : 1); k++) {
      const next = many ? d[k] : (d as DTask<unknown>);
      if (!canSendAhead(s, next, slot, root, cascade)) continue;
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
 * Whether `task` may go ahead to `slot`'s worker: every input it waits for is being made there,
 * sent in this cascade (`root`, or one of `cascade` when any other was sent).
 */
function canSendAhead(
  s: SchedulerState,
  task: DTask<unknown>,
  slot: ProcSlot,
  root: DTask<unknown>,
  cascade: Set<DTask<unknown>> | undefined,
): boolean {
  if (task.state !== TaskState.Pending || typeof task.fn !== 'function') return false;
  // Inputs it still waits for that are arguments; any other wait (a task queue's extra
  // dependency, e.g. datadeps ordering) is unknown to the worker, so it must not be sent ahead.
  // Looked at before the options: most dependents that fail do so here (a datadeps region's
  // tasks wait for each other through extra dependencies), and reading an options object,
  // whose shapes vary from task to task, costs more than reading the arguments.
  let argWaits = 0;
  for (const a of task.args) {
    if (typeof a !== 'object' || a === null) continue;
    if (!isDTask(a)) {
      if (isChunk(a)) return false;
      continue;
    }
    // A streaming input's value is substituted on this thread when its stream ends.
    if ((a.flags & TaskFlags.Streaming) !== 0) return false;
    if (a.state !== TaskState.Done) argWaits++;
    if (a.state === TaskState.Done) {
      const v = a.value;
      // A result lost with its worker must be recomputed first (see waitForLostInputs). One on
      // its way to this thread, or another context's, would hold the task's message back
      // until it came, and then the inputs being made on the worker could be gone already
      // (regression: such a task waited forever for a small result its input had let go).
      if (isRemoteResult(v) && (v.isLost() || v.moving !== undefined)) return false;
      if (a.owner !== s) return false;
      continue;
    }
    if (a.state !== TaskState.Running || a.proc !== slot.proc) return false;
    if (a !== root && cascade?.has(a) !== true) return false;
  }
  if (argWaits !== task.waiting) return false;
  const o = task.options;
  if ((task.flags & TaskFlags.LocalOnly) !== 0 || o.syncdeps !== undefined) return false;
  if (o.signal !== undefined || o.restore !== undefined || o.meta === true) return false;
  // Placed where the data it writes is, which is known once its inputs have finished.
  if (o.inPlaceArgs !== undefined) return false;
  try {
    return candidatesOf(s, task).includes(slot);
  } catch {
    return false;
  }
}

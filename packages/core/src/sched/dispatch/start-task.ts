import { loggingState } from '../../log/index.js';
import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { restoreOrRun } from '../completion/restore-checkpoint.js';
import { logStart } from '../log-task-events.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';
import { runTask } from './run-task.js';

/**
 * Hands a placed task to its executor (its estimate is already in `slot.load`): counts it in
 * the slot's share, notes a processor that was idle until now (`woke`, flushed after the
 * dispatch), and runs it, or first its `restore` function.
 */
export function startTask(s: SchedulerState, task: DTask<unknown>, slot: ProcSlot): void {
  task.state = TaskState.Running;
  if (!slot.executor.inline) {
    if (slot.inFlight === 0) s.woke = slot;
    task.flags |= TaskFlags.Counted;
    slot.inFlight += task.options.occupancy ?? 1;
    slot.sentLoad += task.estimate;
  }
  if (loggingState.enabled) logStart(task, slot.proc);
  if (typeof task.options.restore === 'function') restoreOrRun(s, task, slot);
  else runTask(s, task, slot);
}

import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';
import { runInline } from './run-inline.js';
import { sendAhead } from './send-ahead.js';

/**
 * Runs a started task on `slot`: inline on this thread, or handed to the slot's executor, with
 * its dependents sent ahead where the executor takes tasks whose inputs are still being made.
 */
export function runTask(s: SchedulerState, task: DTask<unknown>, slot: ProcSlot): void {
  if (task.state !== TaskState.Running) return; // cancelled while its restore ran
  if (slot.executor.inline) runInline(s, task, slot);
  else {
    s.running.set(task.id, task);
    slot.executor.run(task, slot.proc, s.sink);
    if (task.dependents !== undefined && slot.executor.acceptsPending) sendAhead(s, task, slot);
  }
}

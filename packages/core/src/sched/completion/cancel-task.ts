import { CancelledError } from '../../errors/errors.js';
import { type DTask, taskExtra } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import type { SchedulerState } from '../scheduler-state.js';
import { failTask } from './fail-task.js';
import { groupRunOf } from './group-run.js';

/**
 * The scheduler's `cancel` (`TaskOwner.cancel`): a task not yet running fails at once with
 * `CancelledError`; a running one has its abort signal fired and its executor asked to stop
 * it, and fails too. A group's output handle (`spawnGroup`) cancels its group, as Ray's
 * `cancel` of one of a task's returns does: every pending output of the group fails with it.
 */
export function cancelTask(s: SchedulerState, task: DTask<unknown>, reason?: unknown): boolean {
  if (task.state >= TaskState.Done) return false;
  const run = groupRunOf(task);
  if (run !== undefined) return cancelTask(s, run.group, reason);
  const error =
    reason instanceof CancelledError || CancelledError.isInstance(reason)
      ? reason
      : new CancelledError(
          `Task #${task.id}${task.name ? ` '${task.name}'` : ''} was cancelled`,
          reason === undefined ? undefined : { cause: reason },
        );
  const wasRunning = task.state === TaskState.Running;
  const abort = task.extra?.abort;
  if (abort && !abort.signal.aborted) abort.abort(error);
  else if (wasRunning) taskExtra(task).abort = abortedController(error);
  if (wasRunning) {
    const slot = task.proc && s.slotById.get(task.proc.id);
    slot?.executor.cancel?.(task);
  }
  failTask(s, task, error);
  return true;
}

function abortedController(reason: unknown): AbortController {
  const c = new AbortController();
  c.abort(reason);
  return c;
}

import { SchedulingError, WorkerLostError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';

/**
 * The function of an output handle of a group (`groupPartHandles`): such a handle is never run
 * itself; its output is made by its group's task.
 */
export function groupOutput(): never {
  throw new SchedulingError(
    'A group task output is made by its group, not run on its own: spawn the group again',
  );
}

/**
 * Fails `task`, an output handle of a group whose worker was lost, with `WorkerLostError`, and
 * returns true; false for any other task (made again from its lineage).
 */
export function failLostGroupPart(task: DTask<unknown>, reason?: unknown): boolean {
  if (task.fn !== groupOutput) return false;
  task.state = TaskState.Failed;
  task.value = new WorkerLostError(
    `Group output ${task} was lost with its worker; a group's outputs are not made again one ` +
      'by one: spawn the group again.',
    reason === undefined ? undefined : { cause: reason },
  );
  return true;
}

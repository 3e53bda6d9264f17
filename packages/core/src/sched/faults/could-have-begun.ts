import { type DTask, isDTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';

/**
 * Whether a task in flight on a worker may have begun there. One sent with its inputs made
 * starts on arrival (or as soon as the worker is free); one sent ahead of its inputs waits
 * until they are made there (and the tasks its queue orders it after have ended there), so
 * while one is still being made it has not begun. (Sent-ahead
 * tasks never take a streaming input, whose task stays running while it streams.)
 */
export function couldHaveBegun(task: DTask<unknown>): boolean {
  if ((task.flags & TaskFlags.SentAhead) === 0) return true;
  for (const a of task.args) if (isDTask(a) && a.state !== TaskState.Done) return false;
  // The tasks its queue orders it after, awaited there too (`TaskExtra.after`).
  const after = task.extra?.after;
  if (after !== undefined) {
    for (const b of after) if (isDTask(b) && b.state !== TaskState.Done) return false;
  }
  return true;
}

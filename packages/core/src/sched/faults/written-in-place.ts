import { isChunk } from '../../chunk/chunk.js';
import { WorkerLostError } from '../../errors/errors.js';
import { describeTask } from '../../errors/task-failed-error.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { resultTaskOf } from '../ready/pending-task-of.js';

/**
 * Marks the results `task` writes in place (its `inPlaceArgs`: a task's result, or a chunk
 * naming the task that made it) as written: from now on their lineage would make the data as
 * it was before the write, so a copy lost with its worker must not be made again from it.
 */
export function markWrittenInPlace(task: DTask<unknown>): void {
  const indices = task.options.inPlaceArgs;
  if (indices === undefined) return;
  for (const i of indices) {
    const a = task.args[i];
    const made = isDTask(a) ? a : isChunk(a) ? resultTaskOf(a) : undefined;
    if (made !== undefined) made.flags |= TaskFlags.WrittenInPlace;
  }
}

/**
 * Fails `task`, whose result was written in place and is lost with its worker, with a
 * `WorkerLostError` that says so: its tasks and fetches reject with it, where a recompute from
 * its lineage would give the data without the writes. Returns false for any other task.
 */
export function failLostWrittenData(task: DTask<unknown>, reason?: unknown): boolean {
  if ((task.flags & TaskFlags.WrittenInPlace) === 0) return false;
  task.state = TaskState.Failed;
  task.value = new WorkerLostError(
    `The result of task ${describeTask(task)} was written in place by later tasks and was lost with its worker; ` +
      'it is not recomputed, since its lineage makes the data as it was before those writes. Restore the data and run again.',
    reason === undefined ? undefined : { cause: reason },
  );
  return true;
}

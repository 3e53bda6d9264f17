import { isChunk } from '../../chunk/chunk.js';
import { WorkerLostError } from '../../errors/errors.js';
import { describeTask } from '../../errors/task-failed-error.js';
import { type DTask, isDTask, taskExtra } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { resultTaskOf } from '../ready/pending-task-of.js';

/** The task whose result `arg` is (a task, or a chunk naming the task that made it). */
function madeBy(arg: unknown): DTask<unknown> | undefined {
  return isDTask(arg) ? arg : isChunk(arg) ? resultTaskOf(arg) : undefined;
}

/**
 * Marks the results `task` writes in place (its `inPlaceArgs`) as written, by `task`: from now
 * on their lineage would make the data as it was before the write, so a copy lost with its
 * worker must not be made again from it; nor may a result read from them before the write
 * (an earlier task's), whose lineage would now read the data after it.
 */
export function markWrittenInPlace(task: DTask<unknown>): void {
  const indices = task.options.inPlaceArgs;
  if (indices === undefined) return;
  for (const i of indices) {
    const made = madeBy(task.args[i]);
    if (made === undefined) continue;
    made.flags |= TaskFlags.WrittenInPlace;
    const extra = taskExtra(made);
    if ((extra.writtenBy ?? 0) < task.id) extra.writtenBy = task.id;
  }
}

/**
 * Fails `task`, whose result is lost with its worker and cannot be made again from its lineage,
 * with a `WorkerLostError` that says why: its result was written in place (its lineage makes
 * the data as it was before the writes), or one of its inputs was written in place after it
 * read it (its lineage would read the data after them). Its tasks and fetches reject with it.
 * Returns false for a task its lineage makes again as it was. `inputs`: what its lineage reads
 * (its arguments; a group's output: its group's).
 */
export function failLostWrittenData(
  task: DTask<unknown>,
  reason?: unknown,
  inputs: readonly unknown[] = task.args,
): boolean {
  let why: string;
  if ((task.flags & TaskFlags.WrittenInPlace) !== 0) {
    why =
      'was written in place by later tasks and was lost with its worker; it is not recomputed, ' +
      'since its lineage makes the data as it was before those writes';
  } else {
    const input = inputs.find((a) => (madeBy(a)?.extra?.writtenBy ?? 0) > task.id);
    if (input === undefined) return false;
    why =
      `was lost with its worker, and its input ${describeTask(madeBy(input)!)} was written in place after it was read; ` +
      'it is not recomputed, since its lineage would read the data after those writes';
  }
  task.state = TaskState.Failed;
  task.value = new WorkerLostError(
    `The result of task ${describeTask(task)} ${why}. Restore the data and run again.`,
    reason === undefined ? undefined : { cause: reason },
  );
  return true;
}

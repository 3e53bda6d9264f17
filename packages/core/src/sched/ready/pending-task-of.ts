import type { Chunk } from '../../chunk/chunk.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';

/**
 * The task still producing a chunk (from `mutable`), if it has not finished: a task that takes
 * the chunk waits for it. Called by `Scheduler.submit`.
 */
export function pendingTaskOf(chunk: Chunk<unknown>): DTask<unknown> | undefined {
  const p = chunk.handle.pending;
  return isDTask(p) && p.state < TaskState.Done ? p : undefined;
}

/**
 * The finished task whose result is a chunk's data (`ChunkHandle.task`), if any: a task that
 * takes the chunk takes that result as it would the task (by reference where it is held).
 */
export function resultTaskOf(chunk: Chunk<unknown>): DTask<unknown> | undefined {
  const t = chunk.handle.task;
  return isDTask(t) && t.state === TaskState.Done ? t : undefined;
}

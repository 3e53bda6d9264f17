import { Chunk, isChunk } from '../../chunk/chunk.js';
import { AnyScope } from '../../scope/index.js';
import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { RemoteResult } from '../dispatch/executor.js';

const ANY = new AnyScope();

/** A `Chunk` for a finished task's result, scoped by its result scope. */
export function chunkOfTask(task: DTask<unknown>): Chunk<unknown> {
  const v = task.value;
  const proc = task.proc!;
  if (v instanceof RemoteResult) {
    return new Chunk(
      { processor: v.processor, fetch: () => v.fetch(), bytes: v.bytes },
      task.options.resultScope ?? ANY,
    );
  }
  return new Chunk(
    { processor: proc, fetch: () => Promise.resolve(v) },
    task.options.resultScope ?? ANY,
  );
}

/**
 * `task`'s result as a chunk (the scheduler's `TaskOwner.fetchChunk`): the chunk it returned,
 * if it returned one, else `chunkOfTask`; rejects with its error if it failed.
 */
export function fetchChunkOf(task: DTask<unknown>): Promise<unknown> {
  if (task.state === TaskState.Failed) return Promise.reject(task.value);
  if (isChunk(task.value)) return Promise.resolve(task.value);
  return Promise.resolve(chunkOfTask(task));
}

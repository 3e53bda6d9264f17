import { Chunk, type ChunkHandle, isChunk } from '../../chunk/chunk.js';
import type { Processor } from '../../processor/processor.js';
import { AnyScope } from '../../scope/index.js';
import type { DTask } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { fetchRecomputing } from '../faults/recompute.js';
import type { SchedulerState } from '../scheduler-state.js';

const ANY = new AnyScope();

/**
 * A `Chunk` for a finished task's result, scoped by its result scope. It names the task
 * (`ChunkHandle.task`): a task taking the chunk takes that result where it is held (by
 * reference on its worker, so a task writing it in place writes that data), and `fetch` reads
 * the result where it is now (it may have come to this thread since).
 */
export function chunkOfTask(task: DTask<unknown>): Chunk<unknown> {
  const v = task.value;
  const handle = isRemoteResult(v)
    ? new TaskResultHandle(v.processor, task, v.bytes)
    : new TaskResultHandle(task.proc!, task, undefined);
  return new Chunk(handle, task.options.resultScope ?? ANY);
}

/**
 * The handle of `chunkOfTask`'s chunk: a class, so that a raw fetch (one per task at the end
 * of a datadeps region) makes no closure (the build names every closure bound to a name, at
 * ≈ 2.6 µs each).
 */
class TaskResultHandle implements ChunkHandle {
  constructor(
    readonly processor: Processor,
    readonly task: DTask<unknown>,
    readonly bytes: number | undefined,
  ) {}

  /**
   * The result where it is now (it may have come to this thread since): a copy of one a worker
   * holds. One whose worker died, before or while it is read, is made again from its lineage
   * first, as the task's own `fetch` does (a `collect()` of an array whose block was held there
   * rejected with `WorkerLostError` instead).
   */
  fetch(): Promise<unknown> {
    const task = this.task;
    const x = task.value;
    return isRemoteResult(x)
      ? fetchRecomputing(task.owner as SchedulerState, task)
      : Promise.resolve(x);
  }
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

import { type DTask, isChunk, isDTask } from '@dtask/core';
import { isChunkView } from './chunk-view.js';

/**
 * Whether `task` is placed by default: no scope, processor or device chosen for it and nothing
 * to write where other data lives, so the calling thread may run it where its data is here.
 */
export function placedByDefault(task: DTask<unknown>): boolean {
  const o = task.options;
  return (
    typeof task.fn === 'function' &&
    o.scope === undefined &&
    o.computeScope === undefined &&
    o.resultScope === undefined &&
    o.inPlaceArgs === undefined &&
    o.device === undefined
  );
}

/**
 * Whether an argument's data is in this thread's memory (not a `Chunk`, `DTask` or `ChunkView`,
 * whose data may be held elsewhere): a task reading and writing only such data may run here.
 */
export function isHere(value: unknown): boolean {
  return !(isChunk(value) || isDTask(value) || isChunkView(value));
}

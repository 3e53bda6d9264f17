import { isChunk } from '../../chunk/chunk.js';
import type { Processor } from '../../processor/processor.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { RemoteResult } from '../dispatch/executor.js';
import { resultTaskOf } from '../ready/pending-task-of.js';

/**
 * The processor that holds the data of argument `a` (the `inPlaceArgs` option): for a finished
 * task, where its result is (the worker holding it, or the processor it ran on or moved to when
 * it is kept on this thread; for a task that returned a chunk, that chunk's); for a chunk, the
 * holder of the task result it is, else its `processor`. Undefined for anything else, and for
 * a task not finished yet.
 */
export function dataHome(a: unknown): Processor | undefined {
  if (isChunk(a)) {
    const held = resultTaskOf(a);
    return held !== undefined ? dataHome(held) : a.processor;
  }
  if (!isDTask(a)) return undefined;
  const t = a as DTask<unknown>;
  if (t.state !== TaskState.Done) return undefined;
  const v = t.value;
  if (v instanceof RemoteResult) return v.processor;
  if (isChunk(v)) return dataHome(v);
  return t.proc;
}

import { isChunk } from '../../chunk/chunk.js';
import { isDTask } from '../../task/dtask.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';

/**
 * True when the data of `x`, a finished `DTask` or a `Chunk` whose data is a task's result (a
 * `mutable`'s, a shard's piece), was held by a worker thread or process that is gone: what was
 * in it is lost, and using it makes it again from its lineage. False for anything else (data
 * on this thread, on a live worker, a task not finished yet). Plugins that keep state on
 * workers (`@dtask/shard`) call it to notice and report such losses.
 */
export function isDataLost(x: unknown): boolean {
  const t = isChunk(x) ? x.handle.task : x;
  if (!isDTask(t) || t.state !== TaskState.Done) return false;
  const v = t.value;
  return isRemoteResult(v) && v.isLost();
}

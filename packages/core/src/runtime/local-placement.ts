import { isChunk } from '../chunk/chunk.js';
import type { Processor } from '../processor/processor.js';
import type { DTask } from '../task/dtask.js';
import { isDTask } from '../task/dtask.js';
import { TaskFlags } from '../task/task-state.js';

/**
 * The options a task placed by its parent's worker may carry: anything else (a result scope,
 * `meta`, in-place or copy-in/copy-out arguments, retries, streaming, checkpoints, a device,
 * a signal, a plugin's option) needs the scheduler, so such a task goes there.
 */
const LOCAL_OPTIONS = new Set(['name', 'scope', 'computeScope', 'occupancy', 'priority']);

/**
 * Whether the worker runtime on `processor` may place `task`, spawned inside one of its tasks,
 * itself: its function is a function (not a `Chunk`), its options are only those above, its
 * effective scope (`computeScope`, else `scope`, else the default) contains `processor`, it is
 * no streaming node, and every argument is a plain value or a task `owner` placed here too. O(arguments + options):
 * it needs neither the cluster's processor list nor the scheduler.
 */
export function mayPlaceHere(task: DTask<unknown>, processor: Processor, owner: unknown): boolean {
  // A streaming node, or a task already given extras (a streaming driver's `notRerun`, a
  // signal's listener), is the scheduler's to run.
  if (typeof task.fn !== 'function' || task.extra !== undefined) return false;
  if ((task.flags & TaskFlags.Streaming) !== 0) return false;
  const options = task.options;
  for (const key in options) {
    if ((options as Record<string, unknown>)[key] !== undefined && !LOCAL_OPTIONS.has(key)) {
      return false;
    }
  }
  const scope = options.computeScope ?? options.scope;
  if (scope === undefined ? !processor.defaultEnabled : !scope.contains(processor)) return false;
  const args = task.args;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null) continue;
    if (isDTask(a)) {
      if ((a.flags & TaskFlags.Owned) === 0 || a.owner !== owner) return false;
    } else if (isChunk(a)) return false;
  }
  return true;
}

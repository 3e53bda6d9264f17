import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';
import type { SlotTable } from '../scheduler-state.js';

/**
 * Brings a finished task's remote result to the scheduler's thread for good, when the caller
 * fetches it (unless the result is pinned elsewhere by its `resultScope`, or lives in a
 * device's memory: then the caller gets a copy and the holder keeps the data): the holder transfers its `ArrayBuffer`s instead of copying them, and drops its
 * entry, since the caller now owns the data. The task's value becomes that local value, so
 * later fetches return it at once, it can no longer be lost with a worker, and its lineage is
 * let go. Concurrent readers share the one transfer (`RemoteResult.moving`). A holder that
 * cannot move data (`take` absent) serves a copy as before.
 */
export function takeHome(
  s: SlotTable,
  task: DTask<unknown>,
  v: RemoteResult,
  noArgs: unknown[],
): Promise<unknown> {
  if (v.moving) return v.moving;
  if (!v.take) return v.fetch();
  // A result pinned outside the main thread by its resultScope (a shard's piece, seed 004's
  // result scopes) stays where it is: the caller gets a copy.
  const home = localProcessor(s);
  const rs = task.options.resultScope;
  if (rs !== undefined && home !== undefined && !rs.contains(home)) return v.fetch();
  // A result in a device's memory (a tensor, a texture) stays there for the dependents that
  // may use it in place: the caller gets a host copy, as Ray's `get` and Dask's `result()` do.
  if (onDevice(v.processor)) return v.fetch();
  const moving = v.take().then(
    (value) => {
      if (task.value === v) {
        task.value = value;
        task.proc = home ?? task.proc;
        task.args = noArgs;
        if (task.extra?.kept) task.extra.kept = undefined; // the copy kept for lineage's sake
      }
      return value;
    },
    (error) => {
      v.moving = undefined;
      throw error;
    },
  );
  v.moving = moving;
  return moving;
}

/** True when `proc` holds its results in memory of its own, not a thread's or process's. */
function onDevice(proc: Processor): boolean {
  const spaces = proc.memorySpaces();
  return spaces.length > 0 && !spaces.some((m) => HOST_MEMORY.has(m.kind));
}

/** The memory-space kinds of host memory (`HeapMemorySpace`, `SharedMemorySpace`). */
const HOST_MEMORY = new Set(['heap', 'shared']);

/** The processor of the scheduler's own thread, when it runs tasks (the main thread). */
function localProcessor(s: SlotTable): Processor | undefined {
  for (const slot of s.slots) if (slot.executor.inline && !slot.removed) return slot.proc;
  return undefined;
}

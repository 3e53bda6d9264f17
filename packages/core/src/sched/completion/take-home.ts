import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import type { RemoteResult } from '../dispatch/executor.js';
import type { Scheduler } from '../scheduler.js';

/**
 * Brings a finished task's remote result to the scheduler's thread for good, when the caller
 * fetches it: the holder transfers its `ArrayBuffer`s instead of copying them, and drops its
 * entry, since the caller now owns the data. The task's value becomes that local value, so
 * later fetches return it at once, it can no longer be lost with a worker, and its lineage is
 * let go. Concurrent readers share the one transfer (`RemoteResult.moving`). A holder that
 * cannot move data (`take` absent) serves a copy as before.
 */
export function takeHome(
  s: Scheduler,
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

/** The processor of the scheduler's own thread, when it runs tasks (the main thread). */
function localProcessor(s: Scheduler): Processor | undefined {
  for (const slot of s.slots) if (slot.executor.inline && !slot.removed) return slot.proc;
  return undefined;
}

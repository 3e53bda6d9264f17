import { loggingState } from '../../log/index.js';
import type { DTask } from '../../task/dtask.js';
import { TaskFlags } from '../../task/task-state.js';
import { releaseSlot } from '../dispatch/slot-queue.js';
import { logSettled } from '../log-task-events.js';
import type { SchedulerState } from '../scheduler-state.js';
import { noteSettled } from '../stats/task-timing.js';
import { notifyListeners } from './settle.js';

/**
 * Bookkeeping once `task` is settled (done or failed): drops its signal listener, held
 * pieces and the tasks it waited for, frees its share of its processor (which may start parked tasks there), counts it
 * for `maxQueue` and `stats()`, logs it, and runs its listeners (`fetch`, `wait`, `then`).
 */
export function finishTask(s: SchedulerState, task: DTask<unknown>): void {
  const extra = task.extra;
  if (extra?.unlisten) {
    extra.unlisten();
    extra.unlisten = undefined;
  }
  if (extra?.beforePieces) extra.beforePieces = undefined; // lets a shard be collected
  if (extra?.after) extra.after = undefined; // lets the tasks it waited for be collected
  if ((task.flags & TaskFlags.Counted) !== 0) {
    task.flags &= ~TaskFlags.Counted;
    releaseSlot(s, task);
    if (s.onLoadChange !== undefined) s.onLoadChange();
  }
  if ((task.flags & TaskFlags.Unfinished) !== 0) {
    task.flags &= ~TaskFlags.Unfinished;
    s.queueLimit.settled();
    noteSettled(s, task);
  }
  if (loggingState.enabled) logSettled(task);
  notifyListeners(task);
}

import type { DTask } from '../../task/dtask.js';
import { TaskFlags } from '../../task/task-state.js';
import { releaseSlot } from '../dispatch/slot-queue.js';
import type { Scheduler } from '../scheduler.js';
import { withdrawSentAhead } from './withdraw-sent-ahead.js';
import { recoverLostTasks } from './worker-lost.js';

/**
 * A worker handed back `tasks` (the scheduler's `ExecutorSink.lost`: it died, or an input of
 * theirs was lost with a peer): counts the loss (dispatch then looks for lost inputs), takes
 * back the dependents sent ahead behind them (`withdrawSentAhead`), frees their share of their
 * processors, and places them all again (`recoverLostTasks`; the withdrawn ones never count as
 * killed). `byUs` marks a kill the scheduler caused.
 */
export function tasksLost(
  s: Scheduler,
  tasks: Iterable<DTask<unknown>>,
  reason: unknown,
  byUs: boolean,
): void {
  s.losses++;
  const list = [...tasks];
  const withdrawn = withdrawSentAhead(s, list);
  for (const t of list.concat(withdrawn)) {
    if ((t.flags & TaskFlags.Counted) === 0) continue;
    t.flags &= ~TaskFlags.Counted;
    releaseSlot(s, t);
  }
  recoverLostTasks(s, list, reason, byUs);
  recoverLostTasks(s, withdrawn, reason, true);
}

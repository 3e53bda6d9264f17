import type { DTask } from '../../task/dtask.js';
import { failTask } from '../completion/fail-task.js';
import { releaseCounted } from '../dispatch/slot-queue.js';
import { requeue } from '../ready/requeue.js';
import type { SchedulerState } from '../scheduler-state.js';
import { withdrawSentAhead } from './withdraw-sent-ahead.js';
import { type FaultSink, recoverLostTasks } from './worker-lost.js';

/**
 * A worker handed back `tasks` (the scheduler's `ExecutorSink.lost`: it died, or an input of
 * theirs was lost with a peer): counts the loss (dispatch then looks for lost inputs), takes
 * back the dependents sent ahead behind them (`withdrawSentAhead`), frees their share of their
 * processors, and places them all again (`recoverLostTasks`; the withdrawn ones never count as
 * killed). `byUs` marks a kill the scheduler caused.
 */
export function tasksLost(
  s: SchedulerState,
  tasks: Iterable<DTask<unknown>>,
  reason: unknown,
  byUs: boolean,
): void {
  s.losses++;
  const list = [...tasks];
  const withdrawn = withdrawSentAhead(s, list);
  releaseCounted(s, list.concat(withdrawn));
  const sink: FaultSink = {
    requeue: (task) => requeue(s, task),
    fail: (task, error) => failTask(s, task, error),
  };
  recoverLostTasks(sink, list, reason, byUs);
  recoverLostTasks(sink, withdrawn, reason, true);
}

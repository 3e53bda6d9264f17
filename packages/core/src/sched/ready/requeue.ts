import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { waitForLostInputs } from '../faults/recompute.js';
import { restorePieces } from '../placement/take-pieces.js';
import type { SchedulerState } from '../scheduler-state.js';
import { makeReady } from './make-ready.js';

/**
 * Puts a task back to be placed again (its processor went away, or it was taken back). One
 * that was sent ahead may still lack inputs (being made on that worker, or placed again
 * with it): it waits for them first, as when it was spawned.
 */
export function requeue(s: SchedulerState, task: DTask<unknown>): void {
  if (task.state >= TaskState.Done) return;
  s.running.delete(task.id);
  task.proc = undefined;
  restorePieces(task);
  if ((task.flags & TaskFlags.SentAhead) !== 0) {
    task.flags &= ~TaskFlags.SentAhead;
    if (waitForLostInputs(s, task)) return;
  }
  makeReady(s, task);
}

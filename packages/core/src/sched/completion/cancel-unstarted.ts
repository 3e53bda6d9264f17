import { CancelledError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import type { SchedulerState } from '../scheduler-state.js';
import { cancelTask } from './cancel-task.js';

/** The error of a task that had not started when its context closed. */
export function closedBeforeStart(task: DTask<unknown>): CancelledError {
  return new CancelledError(
    `Task #${task.id}${task.name ? ` '${task.name}'` : ''} was cancelled: its context closed before it started`,
  );
}

/**
 * The context is closing: every task of `s` that has not started fails with `CancelledError`,
 * wherever it waits (the ready queue, a processor's backlog, waiting for inputs that a running
 * task makes), and from now on a task about to be placed is cancelled instead (`s.closing`).
 * Tasks already handed to a processor are left to it: its executor settles them as it closes.
 */
export function cancelUnstarted(s: SchedulerState): void {
  s.closing = true;
  const waiting: DTask<unknown>[] = [...s.ready];
  for (const slot of s.slotById.values()) waiting.push(...slot.backlog);
  for (const t of waiting) if (t.state < TaskState.Running) cancelTask(s, t, closedBeforeStart(t));
  // Those that wait for a running task's value (their own dependents fail with them).
  const stack: DTask<unknown>[] = [];
  for (const t of s.running.values()) pushDependents(t, stack);
  let t: DTask<unknown> | undefined;
  while ((t = stack.pop()) !== undefined) {
    if (t.state === TaskState.Pending) cancelTask(s, t, closedBeforeStart(t));
    else if (t.state === TaskState.Running) pushDependents(t, stack);
  }
}

function pushDependents(task: DTask<unknown>, into: DTask<unknown>[]): void {
  const d = task.dependents;
  if (d === undefined) return;
  if (Array.isArray(d)) into.push(...d);
  else into.push(d);
}

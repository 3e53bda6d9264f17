import { logEvent, loggingState, now } from '../../log/index.js';
import { type DTask, taskExtra } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { releaseCounted } from '../dispatch/slot-queue.js';
import { withdrawSentAhead } from '../faults/withdraw-sent-ahead.js';
import { requeue } from '../ready/requeue.js';
import type { SchedulerState } from '../scheduler-state.js';

/**
 * dtask's own errors that another run cannot cure: a cancel, a lost worker (re-runs after
 * those are the scheduler's own), no processor, a misuse, a value that cannot travel.
 */
const NEVER_RETRIED = new Set([
  'DTASK_CANCELLED',
  'DTASK_WORKER_LOST',
  'DTASK_SCHEDULING',
  'DTASK_ARGUMENT',
  'DTASK_TASK_FUNCTION',
  'DTASK_UNSUPPORTED',
  'DTASK_CONCURRENCY',
]);

/**
 * The `retries` option: when `task` threw `error` and has retries left for it, runs it again
 * (after `retryDelayMs`) instead of failing it, and returns true. Dependents sent ahead to
 * its worker are taken back first (they would wait there for a result made elsewhere); they
 * wait for the new run like any dependent. Each retry is logged (`retry`, with the attempt
 * and the error). While it waits for its delay the task is pending: a cancel then fails it.
 */
export function retryInstead(s: SchedulerState, task: DTask<unknown>, error: unknown): boolean {
  const { retries, retryOn, retryDelayMs } = task.options;
  if (retries === undefined || retries === 0 || task.state !== TaskState.Running) return false;
  const extra = taskExtra(task);
  const attempt = (extra.retried ?? 0) + 1;
  if (attempt > retries || !retriable(error, retryOn)) return false;
  extra.retried = attempt;
  const withdrawn = withdrawSentAhead(s, [task]);
  releaseCounted(s, [task, ...withdrawn]);
  if (loggingState.enabled) {
    logEvent({
      kind: 'retry',
      time: now(),
      task: task.id,
      name: task.options.name,
      processor: task.proc?.id,
      worker: task.proc?.worker,
      detail: `attempt ${attempt + 1} of ${retries + 1} after: ${describe(error)}`,
    });
  }
  s.running.delete(task.id);
  task.state = TaskState.Pending;
  task.proc = undefined;
  // Withdrawn dependents are placed again now: placement sees their input is not done and
  // makes them wait for it (the check placement runs once any task has been handed back).
  s.losses++;
  for (const t of withdrawn) requeue(s, t);
  const again = (): void => {
    if (task.state === TaskState.Pending) requeue(s, task);
  };
  if (retryDelayMs) setTimeout(again, retryDelayMs);
  else again();
  return true;
}

function retriable(error: unknown, retryOn: readonly string[] | undefined): boolean {
  const { name, code } = (typeof error === 'object' && error !== null ? error : {}) as {
    name?: unknown;
    code?: unknown;
  };
  if (typeof code === 'string' && NEVER_RETRIED.has(code)) return false;
  if (retryOn === undefined) return true;
  return retryOn.some((want) => want === name || want === code);
}

function describe(error: unknown): string {
  const e = error as { name?: unknown; message?: unknown };
  return typeof e?.message === 'string'
    ? `${String(e.name ?? 'Error')}: ${e.message}`
    : String(error);
}

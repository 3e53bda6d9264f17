import type { TaskOwner } from '../../task/dtask.js';
import { type DTask, taskExtra } from '../../task/dtask.js';

/**
 * The `signal` option: cancels `task` when `signal` aborts (at once if it already has), as the
 * user's `cancel` does (`TaskOwner.cancel`).
 */
export function watchSignal(s: TaskOwner, task: DTask<unknown>, signal: AbortSignal): void {
  if (signal.aborted) {
    s.cancel(task, signal.reason);
    return;
  }
  const onAbort = (): void => {
    s.cancel(task, signal.reason);
  };
  signal.addEventListener('abort', onAbort, { once: true });
  taskExtra(task).unlisten = () => signal.removeEventListener('abort', onAbort);
}

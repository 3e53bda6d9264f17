import type { DTask } from './dtask.js';

/** Runs and clears a finished task's listeners (`fetch`, `wait`, `then` callers). */
export function notifyListeners(task: DTask<unknown>): void {
  const l = task.listeners;
  if (l === undefined) return;
  task.listeners = undefined;
  if (typeof l === 'function') l();
  else if (Array.isArray(l)) {
    for (const cb of l) {
      if (typeof cb === 'function') cb();
      else cb.onTaskSettled(task);
    }
  } else l.onTaskSettled(task);
}

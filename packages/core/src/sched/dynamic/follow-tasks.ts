import type { DTask } from '../../task/dtask.js';
import type { TaskTables } from '../scheduler-state.js';
import { liveTasks } from './dag-walk.js';

/**
 * Calls `onTask` for every unsettled task `s` holds now and every task waiting on them, oldest
 * first, then for each task submitted from now on, until the returned function is called.
 * Followers chain: each one stops alone.
 */
export function followTasks(s: TaskTables, onTask: (task: DTask<unknown>) => void): () => void {
  const seen = new Set<DTask<unknown>>();
  const stack = liveTasks(s);
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (seen.has(t)) continue;
    seen.add(t);
    const d = t.dependents;
    if (d !== undefined) stack.push(...(Array.isArray(d) ? d : [d]));
  }
  for (const t of [...seen].sort((a, b) => a.id - b.id)) onTask(t);
  const before = s.onSubmit;
  let following = true;
  const mine = (task: DTask<unknown>): void => {
    before?.(task);
    if (following) onTask(task);
  };
  s.onSubmit = mine;
  return () => {
    following = false;
    // Unhooked when last in the chain; a follower hooked after this one still calls it.
    if (s.onSubmit === mine) s.onSubmit = before;
  };
}

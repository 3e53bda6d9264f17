import type { DTask } from '../../task/dtask.js';
import type { SchedulerState } from '../scheduler-state.js';
import { finishTask } from './finish-task.js';
import { failTree } from './settle.js';

/** Fails `task` (and its dependents) because its input `upstream` failed. */
export function failFromUpstream(
  s: SchedulerState,
  task: DTask<unknown>,
  upstream: DTask<unknown>,
): void {
  failTree(task, upstream.value, (t) => finishTask(s, t), upstream);
}

import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { SchedulerState } from '../scheduler-state.js';
import { finishTask } from './finish-task.js';
import { retryInstead } from './retry-task.js';
import { failTree } from './settle.js';

/**
 * `task` failed with `error` (the scheduler's `ExecutorSink.fail`): it and every task
 * downstream of it fail (`failTree`), each settled (`finishTask`). Dependents sent ahead to a
 * worker wait there for an input that will never come: they are taken back, silently (a
 * cancel would arm the kill of a worker busy with another task). A task already settled is
 * left as it is; one with retries left for its error runs again instead (`retryInstead`).
 */
export function failTask(s: SchedulerState, task: DTask<unknown>, error: unknown): void {
  if (task.state >= TaskState.Done || retryInstead(s, task, error)) return;
  s.running.delete(task.id);
  failTree(task, error, (t) => {
    if (t !== task && (t.flags & TaskFlags.SentAhead) !== 0) {
      s.running.delete(t.id);
      if (t.proc) s.slotById.get(t.proc.id)?.executor.withdraw?.(t);
    }
    finishTask(s, t);
  });
}

import { DTaskFailedError, type TaskRef } from '../../errors/task-failed-error.js';
import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';

export { notifyListeners } from '../../task/notify-listeners.js';

/** Calls `visit` for each task waiting on `task`. */
export function forEachDependent(task: DTask<unknown>, visit: (d: DTask<unknown>) => void): void {
  const d = task.dependents;
  if (d === undefined) return;
  if (Array.isArray(d)) for (const x of d) visit(x);
  else visit(d);
}

/** Records that `dependent` waits on `upstream`. */
export function addDependent(upstream: DTask<unknown>, dependent: DTask<unknown>): void {
  const d = upstream.dependents;
  if (d === undefined) upstream.dependents = dependent;
  else if (Array.isArray(d)) d.push(dependent);
  else upstream.dependents = [d, dependent];
}

/** The root cause and root task of a failure, whatever level of the chain it is read at. */
function rootOf(error: unknown, task: DTask<unknown>): { cause: unknown; root: TaskRef } {
  if (DTaskFailedError.isInstance(error)) return { cause: error.cause, root: error.rootTask };
  return { cause: error, root: task };
}

/**
 * Fails `task` with `error` (wrapped in a `DTaskFailedError` naming it) and every task
 * downstream of it that has not finished, naming their failed upstream task (for `task`
 * itself: `failedUpstream`, when it fails because an input failed). Iterative, so a
 * 10,000-task chain does not overflow the stack. `onFailed` sees each failed task once.
 */
export function failTree(
  task: DTask<unknown>,
  error: unknown,
  onFailed: (t: DTask<unknown>) => void,
  failedUpstream?: DTask<unknown>,
): void {
  const { cause, root } = rootOf(error, task);
  task.state = TaskState.Failed;
  task.value =
    DTaskFailedError.isInstance(error) && error.task.id === task.id
      ? error
      : new DTaskFailedError({ task, rootTask: root, upstream: failedUpstream, cause });
  const stack: DTask<unknown>[] = [task];
  while (stack.length > 0) {
    const upstream = stack.pop()!;
    onFailed(upstream);
    forEachDependent(upstream, (d) => {
      if (d.state >= TaskState.Done) return;
      // A running dependent can only be one sent ahead to wait for this input on a worker.
      if (d.state === TaskState.Running && (d.flags & TaskFlags.SentAhead) === 0) return;
      d.state = TaskState.Failed;
      d.value = new DTaskFailedError({ task: d, rootTask: root, upstream, cause });
      stack.push(d);
    });
    upstream.dependents = undefined;
  }
}

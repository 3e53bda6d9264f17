import type { DTask } from '../../task/dtask.js';
import { TaskState } from '../../task/task-state.js';
import { failFromUpstream } from '../completion/fail-from-upstream.js';
import { addDependent } from '../completion/settle.js';
import type { SchedulerState } from '../scheduler-state.js';
import { makeReady } from './make-ready.js';

/**
 * Makes `task` wait for `upstream`: 1 if it must wait, 0 if it exists, -1 if failed. An input
 * of this scheduler lists `task` among its dependents; one of another context is listened to.
 */
export function linkTask(
  s: SchedulerState,
  task: DTask<unknown>,
  upstream: DTask<unknown>,
): number {
  if (upstream === task) return 0;
  const state = upstream.state;
  if (state === TaskState.Done) return 0;
  if (state === TaskState.Failed) return -1;
  if (upstream.owner === s) addDependent(upstream, task);
  else upstream.onSettled(() => inputSettled(s, task, upstream));
  return 1;
}

/** One input of `task` (of this scheduler) exists now: ready once the last one does. */
export function inputArrived(s: SchedulerState, task: DTask<unknown>): void {
  if (task.state === TaskState.Pending && --task.waiting === 0) makeReady(s, task);
}

/** An input of another context settled: `task` fails with it, or counts it as arrived. */
function inputSettled(s: SchedulerState, task: DTask<unknown>, upstream: DTask<unknown>): void {
  if (task.state !== TaskState.Pending) return;
  if (upstream.state === TaskState.Failed) failFromUpstream(s, task, upstream);
  else if (--task.waiting === 0) makeReady(s, task);
}

import { type DTask, taskExtra } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { keepInputs } from '../dynamic/weak-inputs.js';
import { noteLineage } from '../faults/lineage.js';
import { inputArrived } from '../ready/link-task.js';
import type { SchedulerState } from '../scheduler-state.js';
import { noteRun } from '../stats/task-timing.js';
import { finishTask } from './finish-task.js';
import { checkpoint } from './restore-checkpoint.js';
import { DEVICE_FAILED, keepOnDevice } from './store-on-device.js';

/**
 * `task` finished with `value`, a value on this thread (`ExecutorSink.complete`): it is done,
 * its run time is learned, its dependents whose inputs are now all here become ready, and it
 * is settled. A local result needs no lineage, so its inputs may be collected.
 */
export function completeTask(
  s: SchedulerState,
  task: DTask<unknown>,
  value: unknown,
  durationMs?: number,
): void {
  if (task.state !== TaskState.Running) return; // cancelled or lost meanwhile
  if (task.options.device !== undefined) {
    value = keepOnDevice(s, task, value);
    if (value === DEVICE_FAILED) return;
  }
  markDone(s, task, value, durationMs);
  afterRun(s, task);
  // getDagIds still walks up through the inputs' ids, or weak references once a handle was
  // asked for.
  task.args = keepInputs(task, s.weakUpstream);
}

/**
 * `task` finished and its value stays where it was made, reachable through `handle`
 * (`ExecutorSink.completeRemote`): as `completeTask`, keeping the lineage that can make the
 * value again should its worker be lost.
 */
export function completeRemoteTask(
  s: SchedulerState,
  task: DTask<unknown>,
  handle: RemoteResult,
  durationMs?: number,
): void {
  if (task.state !== TaskState.Running) return;
  if (handle.bytes !== undefined) taskExtra(task).bytes = handle.bytes;
  markDone(s, task, handle, durationMs);
  noteLineage(s, task, handle);
  afterRun(s, task);
}

/** `task` holds `value` and is done, no longer running; its run time (when measured) is learned. */
function markDone(
  s: SchedulerState,
  task: DTask<unknown>,
  value: unknown,
  durationMs: number | undefined,
): void {
  s.running.delete(task.id);
  task.value = value;
  task.state = TaskState.Done;
  if (durationMs !== undefined) {
    s.costs.recordRun(task.fn, task.args.length, durationMs);
    noteRun(s, task, durationMs);
  }
}

/** A task is done: its checkpoint is written, its dependents learn of it, it is settled. */
function afterRun(s: SchedulerState, task: DTask<unknown>): void {
  if (typeof task.options.checkpoint === 'function') checkpoint(task);
  const d = task.dependents;
  if (d !== undefined) {
    task.dependents = undefined;
    if (Array.isArray(d)) {
      for (let i = 0; i < d.length; i++) inputArrived(s, d[i]);
    } else inputArrived(s, d);
  }
  finishTask(s, task);
}

import { WorkerLostError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { groupOutput } from '../../task/group-parts.js';
import { isRemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { groupRunOf } from '../completion/group-run.js';
import { submitTask } from '../ready/submit-task.js';
import type { SchedulerState } from '../scheduler-state.js';
import { failLostWrittenData } from './written-in-place.js';

/**
 * For `task`, a group's output handle whose output was lost with its worker: its group runs
 * again, once for all its lost outputs (each such handle pending again until it settles), from
 * the arguments it was spawned with, and returns true. A handle whose group's lineage was let go
 * (its outputs copied here to bound lineage, and that copy since taken) fails with
 * `WorkerLostError` instead.
 * False for any other task (made again from its own lineage).
 */
export function remakeLostGroupPart(
  s: SchedulerState,
  task: DTask<unknown>,
  reason?: unknown,
): boolean {
  if (task.fn !== groupOutput) return false;
  const run = groupRunOf(task);
  if (run === undefined || run.lineage === undefined) {
    task.state = TaskState.Failed;
    task.value = new WorkerLostError(
      `Group output ${task} was lost with its worker, and its group's lineage was let go: ` +
        'spawn the group again.',
      reason === undefined ? undefined : { cause: reason },
    );
    return true;
  }
  // An input of the group written in place since it read it: running it again would read
  // the data after those writes.
  if (failLostWrittenData(task, reason, run.lineage)) return true;
  const { group, handles } = run;
  // Every output of the group lived where it ran: each one lost waits for the one re-run.
  for (const h of handles) {
    const v = h.value;
    if (h.state === TaskState.Done && isRemoteResult(v) && v.isLost()) {
      h.value = undefined;
      h.state = TaskState.Pending;
      h.lineage = 0;
    }
  }
  if (group.state < TaskState.Done) return true; // already running again
  group.value = undefined;
  group.args = run.lineage.slice();
  group.lineage = 0;
  group.state = TaskState.Queued;
  group.proc = undefined;
  group.flags = 0;
  if (group.extra) group.extra.bytes = undefined;
  group.onSettled(run);
  submitTask(s, group);
  return true;
}

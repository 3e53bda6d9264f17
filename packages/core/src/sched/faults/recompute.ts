import { DTaskFailedError } from '../../errors/task-failed-error.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { isRemoteResult, type RemoteResult } from '../../task/remote-result.js';
import { TaskState } from '../../task/task-state.js';
import { failFromUpstream } from '../completion/fail-from-upstream.js';
import { linkTask } from '../ready/link-task.js';
import { submitTask } from '../ready/submit-task.js';
import type { SchedulerState } from '../scheduler-state.js';
import { remakeLostGroupPart } from './group-part-lost.js';
import { restoreKeptCopy } from './lineage.js';
import { failLostWrittenData } from './written-in-place.js';

/**
 * Recomputes the inputs of `task` that were held by a worker that died (from their lineage:
 * their function and arguments, kept for results held remotely) and makes `task` wait for
 * them, and for the tasks its queue orders it after that have not ended. Returns true when it
 * must wait.
 *
 * `task` waits once for each time an unfinished input appears among its arguments and its
 * queue's order, and is released once for each edge from that input: an edge that is there
 * already is counted, not linked again. Such an edge is left from its submit when `task` was
 * sent ahead and died with the input (a second edge would release it twice when that input
 * finishes, that is before its other inputs exist: the 1-in-20 hang of the chaos test in
 * threads-faults.test.ts); an input given twice (a stencil block that is both the block and
 * its own halo) must be linked twice, or one release of two leaves `task` waiting forever.
 */
export function waitForLostInputs(s: SchedulerState, task: DTask<unknown>): boolean {
  const args = task.args;
  let waiting = 0;
  // How many times each unfinished input has been counted so far.
  let counted: Map<DTask<unknown>, number> | undefined;
  const wait = (a: DTask<unknown>): void => {
    counted ??= new Map();
    const times = counted.get(a) ?? 0;
    counted.set(a, times + 1);
    if (edgesTo(a, task) > times || linkTask(s, task, a) === 1) waiting++;
  };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (!isDTask(a)) continue;
    if (a.owner === s) resurrect(s, a); // another context's task is recomputed when fetched
    if (a.state === TaskState.Failed && a.owner === s) {
      // Lost data that cannot be made again (written in place): `task` fails with it.
      failFromUpstream(s, task, a);
      return true;
    }
    if (a.state >= TaskState.Done) continue;
    wait(a);
  }
  // The tasks its queue orders it after (`TaskExtra.after`) that have not ended: waited for
  // again, the same way.
  const after = task.extra?.after;
  if (after !== undefined) {
    for (const b of after) {
      if (!isDTask(b) || b.state >= TaskState.Done) continue;
      wait(b);
    }
  }
  if (waiting === 0) return false;
  task.state = TaskState.Pending;
  task.waiting = waiting;
  return true;
}

/** How many times `upstream` releases `task` when it finishes (its edges to `task`). */
function edgesTo(upstream: DTask<unknown>, task: DTask<unknown>): number {
  const d = upstream.dependents;
  if (d === task) return 1;
  if (!Array.isArray(d)) return 0;
  let n = 0;
  for (const t of d) if (t === task) n++;
  return n;
}

/** Puts a finished task whose remote result was lost back into the graph, to run again. */
export function resurrect(s: SchedulerState, task: DTask<unknown>): void {
  const v = task.value;
  if (task.state !== TaskState.Done || !isRemoteResult(v) || !v.isLost()) return;
  if (restoreKeptCopy(task)) return; // its lineage was let go for a copy kept here
  if (failLostWrittenData(task)) return; // written in place, or its inputs since it read them
  if (remakeLostGroupPart(s, task)) return; // a group's output: made by its whole group
  task.value = undefined;
  task.lineage = 0;
  task.state = TaskState.Queued;
  task.proc = undefined;
  task.flags = 0;
  if (task.extra) task.extra.bytes = undefined;
  submitTask(s, task);
}

/**
 * A task's value for `fetch`: a result held by a worker that died (or dies while it is being
 * fetched) is recomputed from its lineage, and the fetch waits for that. `read` pulls a value
 * that is still there (a copy by default).
 */
export function fetchRecomputing(
  s: SchedulerState,
  task: DTask<unknown>,
  read: (v: RemoteResult) => Promise<unknown> = (v) => v.fetch(),
): Promise<unknown> {
  if (task.state === TaskState.Failed) return Promise.reject(task.value);
  const v = task.value;
  if (!isRemoteResult(v)) return Promise.resolve(v);
  const recompute = (): Promise<unknown> => {
    s.losses++;
    resurrect(s, task);
    if (task.state === TaskState.Failed) return Promise.reject(task.value);
    return task.fetch();
  };
  if (v.isLost()) return recompute();
  return read(v).catch((error) =>
    v.isLost() ? recompute() : Promise.reject(asTaskFailure(task, error)),
  );
}

/**
 * A result that cannot be read (one that cannot leave its worker, such as a function) rejects
 * the fetch as a failed task does: `DTaskFailedError` with the coded error as its `cause`.
 */
function asTaskFailure(task: DTask<unknown>, error: unknown): unknown {
  if (DTaskFailedError.isInstance(error)) return error;
  return new DTaskFailedError({ task, rootTask: task, cause: error });
}

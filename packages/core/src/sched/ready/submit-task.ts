import { isChunk } from '../../chunk/chunk.js';
import { loggingState } from '../../log/index.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { failFromUpstream } from '../completion/fail-from-upstream.js';
import { watchSignal } from '../completion/watch-signal.js';
import { runHere } from '../dispatch/run-here.js';
import { takeInWhileSpawning } from '../dispatch/take-in-while-spawning.js';
import { logSpawn } from '../log-task-events.js';
import type { SchedulerState } from '../scheduler-state.js';
import { linkTask } from './link-task.js';
import { makeReady } from './make-ready.js';
import { pendingTaskOf } from './pending-task-of.js';

/**
 * Takes a task into the graph: links it to the tasks and pending chunks it takes as inputs
 * (plus `extraDeps`, which it waits for without receiving values) and queues it once they exist.
 * `early` (a task queue's `startEarly`): if it is ready now and a worker is idle, it starts now.
 * `here` (a task queue's `SubmitTask`): if it is ready now and tiny, it runs on the calling
 * thread before this returns (`runHere`).
 * `ahead` (a task queue's `awaitsOnWorkers`): a task with extra dependencies is flagged
 * `AwaitsOnWorkers`, so that it may be sent ahead to the worker making them (`sendAhead`).
 * A task that takes only plain values and tasks, with no scope options, is flagged `Plain`
 * (placement's fast path).
 */
export function submitTask(
  s: SchedulerState,
  task: DTask<unknown>,
  extraDeps?: Iterable<unknown>,
  early = false,
  here = false,
  ahead = false,
): void {
  if (task.state !== TaskState.Queued) return; // cancelled while held by a task queue
  task.state = TaskState.Pending;
  task.flags |= TaskFlags.Unfinished;
  s.queueLimit.unfinished++;
  if (s.onSubmit !== undefined) s.onSubmit(task);
  if (loggingState.enabled) extraDeps = logSpawn(task, extraDeps);
  let waiting = 0;
  let failed: DTask<unknown> | undefined;
  const o = task.options;
  let plain =
    typeof task.fn === 'function' &&
    o.scope === undefined &&
    o.computeScope === undefined &&
    o.resultScope === undefined &&
    o.inPlaceArgs === undefined;
  const args = task.args;
  let values = true;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (typeof a !== 'object' || a === null) continue;
    let upstream: DTask<unknown> | undefined;
    if (isDTask(a)) {
      values = false;
      upstream = a;
      if (a.options.resultScope !== undefined) plain = false;
    } else if (isChunk(a)) {
      values = false;
      plain = false;
      if (a.handle.pieceFor !== undefined) task.flags |= TaskFlags.PieceArgs;
      upstream = pendingTaskOf(a);
    } else continue;
    const linked = upstream === undefined ? 0 : linkTask(s, task, upstream);
    if (linked === 1) waiting++;
    else if (linked === -1) failed ??= upstream;
  }
  if (plain) task.flags |= TaskFlags.Plain;
  if (values) task.flags |= TaskFlags.ValueArgs;
  if (typeof task.fn === 'object' || o.syncdeps !== undefined || extraDeps !== undefined) {
    // A task queue's extra dependencies alone (every task of a datadeps region that waits)
    // are walked as given: no list is made to hold them.
    let more: Iterable<unknown>;
    if (typeof task.fn !== 'object' && o.syncdeps === undefined) {
      more = extraDeps as Iterable<unknown>;
      if (ahead) task.flags |= TaskFlags.AwaitsOnWorkers;
    } else {
      const all: unknown[] = [task.fn];
      if (o.syncdeps) all.push(...o.syncdeps);
      if (extraDeps) all.push(...extraDeps);
      more = all;
    }
    for (const dep of more) {
      const upstream = isDTask(dep) ? dep : isChunk(dep) ? pendingTaskOf(dep) : undefined;
      const linked = upstream === undefined ? 0 : linkTask(s, task, upstream);
      if (linked === 1) waiting++;
      else if (linked === -1) failed ??= upstream;
    }
  }
  const signal = task.options.signal;
  if (signal) watchSignal(s, task, signal);
  if (failed) {
    failFromUpstream(s, task, failed);
    return;
  }
  task.waiting = waiting;
  if (waiting === 0 && task.state === TaskState.Pending) {
    if (here && runHere(s, task)) return;
    makeReady(s, task, early);
  }
  if (early) takeInWhileSpawning(s);
}

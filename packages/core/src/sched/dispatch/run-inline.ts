import { InputLostError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { asyncRunSettled, callInFrame } from '../../task/frame.js';
import { isThenable } from '../../task/is-thenable.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { heldRemotely } from '../placement/data-home.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState } from '../scheduler-state.js';
import { noteInlineStart } from '../stats/task-timing.js';
import { applyReturnedArgs } from './apply-returned-args.js';
import { hereRunTimed, noteHereRun } from './here-timing.js';
import { resolveArgs } from './resolve-args.js';

/**
 * Runs `task` on the calling thread, inside the scheduler's loop (the slot of an
 * `InlineExecutor`): resolves its arguments (waiting for those that must be fetched first),
 * calls its function in its frame, and completes or fails it. A task whose input was lost with
 * its worker goes back to be placed again. Synchronous results settle the task at once, so a
 * chain of local tasks costs no wake-up.
 */
export function runInline(s: SchedulerState, task: DTask<unknown>, slot: ProcSlot): void {
  // Arguments with no task or chunk among them are passed as they are (a tiny task run here).
  const args =
    (task.flags & TaskFlags.ValueArgs) !== 0 && typeof task.fn === 'function'
      ? task.args
      : resolveArgs(s, task, slot.proc);
  if (!Array.isArray(args)) {
    s.running.set(task.id, task);
    args.then(
      (a) => callInline(s, task, slot, a),
      (error) =>
        InputLostError.isInstance(error)
          ? s.sink.lost([task], error, true)
          : s.sink.fail(task, error),
    );
    return;
  }
  callInline(s, task, slot, args);
}

/**
 * Calls `task`'s function with `args` and settles it: timed while `learnInline` is on, or when
 * sampled for `stats()` (it has a `readyAt`); an untimed run is only counted, and so is a task
 * run at once by `runHere` that was not sampled (its time goes to the cost model only).
 */
function callInline(
  s: SchedulerState,
  task: DTask<unknown>,
  slot: ProcSlot,
  args: unknown[],
): void {
  if (task.state !== TaskState.Running) return;
  const sampled = task.readyAt !== undefined;
  // A task run at once by `runHere` is timed one run in a few (`hereRunTimed`), others always.
  const timed =
    sampled || (s.learnInline && ((task.flags & TaskFlags.Here) === 0 || hereRunTimed()));
  const t0 = timed ? performance.now() : 0;
  if (timed) noteInlineStart(task, slot, t0);
  let result: unknown;
  const fn = task.fn;
  try {
    result = callInFrame(task, fn as Function, args);
  } catch (error) {
    s.sink.fail(task, error);
    return;
  }
  // The common case first, with no closure: nothing written in place came from a worker.
  const o = task.options;
  if (o.inPlaceArgs === undefined || o.returnArgs?.apply === undefined) {
    if (isThenable(result)) {
      s.running.set(task.id, task);
      (result as PromiseLike<unknown>).then(
        (v) => {
          asyncRunSettled(fn);
          if (!timed) slot.stats.tasks++;
          s.sink.complete(task, v, timed ? performance.now() - t0 : undefined);
        },
        (e) => {
          asyncRunSettled(fn);
          s.sink.fail(task, e);
        },
      );
      return;
    }
    if (!timed) slot.stats.tasks++;
    else if (!sampled && (task.flags & TaskFlags.Here) !== 0) {
      // Run at once by `runHere`: its timed runs teach the cost model (a tiny function whose
      // runs grow stops being run here soon: from its first slow one on, every run is timed),
      // but only sampled ones go to `stats()`' histograms.
      slot.stats.tasks++;
      const ms = performance.now() - t0;
      s.costs.recordRun(fn, task.args.length, ms);
      noteHereRun(ms);
      s.sink.complete(task, result);
      return;
    }
    s.sink.complete(task, result, timed ? performance.now() - t0 : undefined);
    return;
  }
  const settle = (v: unknown) => {
    asyncRunSettled(fn);
    const ms = timed ? performance.now() - t0 : undefined;
    if (!timed) slot.stats.tasks++;
    const failed = writeBackMoved(task, args);
    if (failed instanceof Promise) {
      s.running.set(task.id, task);
      failed.then((error) =>
        error === undefined ? s.sink.complete(task, v, ms) : s.sink.fail(task, error),
      );
    } else if (failed !== undefined) s.sink.fail(task, failed);
    else s.sink.complete(task, v, ms);
  };
  if (isThenable(result)) {
    s.running.set(task.id, task);
    (result as PromiseLike<unknown>).then(settle, (e) => {
      asyncRunSettled(fn);
      s.sink.fail(task, e);
    });
    return;
  }
  settle(result);
}

/**
 * Arguments written in place whose data a worker holds (`inPlaceArgs` moved here, see
 * `markMovedArgs`): the task wrote copies, which go to `returnArgs.apply` to be written back
 * there. Returns what `applyReturnedArgs` does; undefined when nothing was moved.
 */
function writeBackMoved(task: DTask<unknown>, args: unknown[]): unknown {
  const o = task.options;
  const moved = o.returnArgs!.indices.filter((i) => heldRemotely(task.args[i]) !== undefined);
  if (moved.length === 0) return undefined;
  return applyReturnedArgs(
    task,
    moved.map((i) => args[i]),
    moved,
  );
}

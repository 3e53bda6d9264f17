import { InputLostError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { callInFrame } from '../../task/frame.js';
import { TaskState } from '../../task/task-state.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { Scheduler } from '../scheduler.js';
import { noteInlineStart } from '../stats/task-timing.js';
import { isThenable } from './is-thenable.js';

/**
 * Runs `task` on the calling thread, inside the scheduler's loop (the slot of an
 * `InlineExecutor`): resolves its arguments (waiting for those that must be fetched first),
 * calls its function in its frame, and completes or fails it. A task whose input was lost with
 * its worker goes back to be placed again. Synchronous results settle the task at once, so a
 * chain of local tasks costs no wake-up.
 */
export function runInline(s: Scheduler, task: DTask<unknown>, slot: ProcSlot): void {
  const args = s.resolveArgs(task, slot.proc);
  if (!Array.isArray(args)) {
    s.running.add(task);
    args.then(
      (a) => callInline(s, task, slot, a),
      (error) =>
        InputLostError.isInstance(error) ? s.lost([task], error, true) : s.fail(task, error),
    );
    return;
  }
  callInline(s, task, slot, args);
}

/**
 * Calls `task`'s function with `args` and settles it: timed while `learnInline` is on, or when
 * sampled for `stats()` (it has a `readyAt`); an untimed run is only counted.
 */
function callInline(s: Scheduler, task: DTask<unknown>, slot: ProcSlot, args: unknown[]): void {
  if (task.state !== TaskState.Running) return;
  const timed = s.learnInline || task.readyAt !== undefined;
  const t0 = timed ? performance.now() : 0;
  if (timed) noteInlineStart(task, slot, t0);
  let result: unknown;
  try {
    result = callInFrame(task, task.fn as Function, args);
  } catch (error) {
    s.fail(task, error);
    return;
  }
  if (isThenable(result)) {
    s.running.add(task);
    (result as PromiseLike<unknown>).then(
      (v) => {
        if (!timed) slot.stats.tasks++;
        s.complete(task, v, timed ? performance.now() - t0 : undefined);
      },
      (e) => s.fail(task, e),
    );
    return;
  }
  if (!timed) slot.stats.tasks++;
  s.complete(task, result, timed ? performance.now() - t0 : undefined);
}

import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { SchedulerState } from '../scheduler-state.js';
import { HERE_RUN_MS } from './here-timing.js';
import { startTask } from './start-task.js';

/** Runs of a function timed before its learned run time is trusted for `runHere`. */
const HERE_SAMPLES = 4;

/**
 * One in this many tasks run by `runHere` is recorded in `stats()` (a histogram entry costs
 * about a tenth of such a task); those, and one in `HERE_TIMED_EVERY`, are timed for the cost
 * model (here-timing.ts).
 */
export const HERE_SAMPLED_EVERY = 16;

/** Tasks run by `runHere` until the next one recorded in `stats()`. */
let untilTimed = 0;

/**
 * Runs `task` (submitted, with nothing to wait for) on the calling thread now, synchronously,
 * when its function has been timed at least `HERE_SAMPLES` times and typically runs under
 * `HERE_RUN_MS` (`CostModel.typicalRun`), and the scheduler is open. Returns false, having done nothing, otherwise. The
 * caller (a task queue) has checked that the calling thread may run it: its data is here.
 */
export function runHere(s: SchedulerState, task: DTask<unknown>): boolean {
  if (s.closing || typeof task.fn !== 'function' || task.options.restore !== undefined) {
    return false;
  }
  if (!s.costs.runsUnder(task.fn, task.args.length, HERE_SAMPLES, HERE_RUN_MS)) return false;
  for (const slot of s.slots) {
    if (!slot.executor.inline || slot.removed) continue;
    task.state = TaskState.Ready;
    task.flags |= TaskFlags.Here;
    if (--untilTimed <= 0) {
      untilTimed = HERE_SAMPLED_EVERY;
      task.readyAt = performance.now(); // sampled, with no wait
    }
    task.proc = slot.proc;
    startTask(s, task, slot);
    return true;
  }
  return false;
}

import type { DTask } from '../../task/dtask.js';
import { outsideFrames } from '../../task/frame.js';
import { TaskState } from '../../task/task-state.js';
import { mayWakeIdle } from '../dispatch/slot-queue.js';
import type { ReadyState } from '../scheduler-state.js';
import { noteReady } from '../stats/task-timing.js';

/**
 * A task whose inputs all exist joins the ready queue, and the loop is queued to place it (once
 * per burst: a microtask). `early` (a task queue's `startEarly`): when it is the only ready task
 * and a worker idles that may still be woken at once (`mayWakeIdle`), it is placed now, while
 * its spawner still runs.
 */
export function makeReady(s: ReadyState, task: DTask<unknown>, early = false): void {
  task.state = TaskState.Ready;
  // Most tasks are not timed: count them down here, without a call.
  if (s.learnInline || s.stats.countdown <= 1) noteReady(s, task);
  else s.stats.countdown--;
  s.ready.push(task);
  if (!s.scheduled) {
    s.scheduled = true;
    queueMicrotask(s.pumpOutside);
  }
  if (early && s.ready.length === 1 && mayWakeIdle(s, s.wokeAtOnce)) outsideFrames(s.placeEarly);
}

import { UnsupportedError } from '../errors/errors.js';
import { Scheduler } from '../sched/scheduler.js';
import { collectStats, type Stats } from '../sched/stats/collect-stats.js';
import { currentFrame } from '../task/frame.js';
import { defaultContext } from './default-context.js';

/**
 * Utilisation of the current context (a task's own, else the default one): per processor its
 * busy fraction, task runs, and run- and wait-time percentiles, plus task counts. The same as
 * `ctx.stats()`; plain data.
 * @throws UnsupportedError (`DTASK_UNSUPPORTED`) inside a task running on a worker thread or
 * process: the figures live with the scheduler; read them there (`ctx.stats()`).
 */
export function stats(): Stats {
  const owner = currentFrame()?.frameTask?.handleOwner;
  if (owner instanceof Scheduler) return collectStats(owner);
  if (owner !== undefined) {
    throw new UnsupportedError(
      'stats() inside a task running on a worker: the figures are kept by the scheduler, on ' +
        'the thread that made the context; call stats() or ctx.stats() there',
    );
  }
  return collectStats(defaultContext().scheduler);
}

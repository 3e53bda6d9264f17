import os from 'node:os';

/**
 * What giving an idle local worker process work costs placement beyond the task (ms), once the
 * machine's cores each have a worker of their own: a message each way and a process woken
 * with cold caches, sharing the cores with those already at work. Measured on 2 cores with 32
 * local workers and 4,000 trivial tasks per round: spread over all 32, the workers spent 25 µs
 * of CPU per task; packed on 2 of them, 1 µs.
 */
export const EXTRA_WORKER_WAKE_MS = 1;

/**
 * The wake cost of the local worker started `rank`-th (from 0): nothing for the first one per
 * core, so tasks spread over the cores as before; `EXTRA_WORKER_WAKE_MS` past them, so tasks
 * known to be tiny pack onto workers already at work instead of waking more processes than
 * the machine can run at once (Ray's hybrid policy packs before it spreads). Longer tasks
 * still spread over every worker.
 */
export function localWakeMs(rank: number, cores = os.availableParallelism()): number {
  return rank < cores ? 0 : EXTRA_WORKER_WAKE_MS;
}

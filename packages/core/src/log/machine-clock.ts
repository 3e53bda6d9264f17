import { readFileSync } from 'node:fs';
import { now } from './event-log.js';

let cached: string | null | undefined;

/**
 * An id of this boot of this machine (Linux's `/proc/sys/kernel/random/boot_id`), or
 * `undefined` where there is none. Processes that report the same id share one monotonic
 * clock (`monotonicNow`), so the offset between their log clocks can be computed exactly
 * instead of estimated from round trips; called by the worker runtime's and the scheduler's
 * sides of the logs.
 */
export function machineId(): string | undefined {
  if (cached === undefined) {
    try {
      cached = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim() || null;
    } catch {
      cached = null;
    }
  }
  return cached ?? undefined;
}

/**
 * Milliseconds on this machine's monotonic clock (`CLOCK_MONOTONIC` on Linux), which every
 * process and thread of one boot shares, unlike the wall clock `now()` is derived from.
 */
export function monotonicNow(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/**
 * This thread's log clock (`now()`) less the monotonic clock (`monotonicNow()`): a constant of
 * the thread, read between two monotonic reads, from the pair with the shortest gap of a few
 * tries. A thread descheduled between two plain reads (a loaded machine) would put the pause
 * into the difference: 38 ms in a same-machine offset once, where it is exact.
 */
export function logClockLessMonotonic(): number {
  let gap = Number.POSITIVE_INFINITY;
  let difference = 0;
  for (let i = 0; i < 5 && gap > 0.02; i++) {
    const before = monotonicNow();
    const log = now();
    const after = monotonicNow();
    if (after - before < gap) {
      gap = after - before;
      difference = log - (before + after) / 2;
    }
  }
  return difference;
}

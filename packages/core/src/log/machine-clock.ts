import { readFileSync } from 'node:fs';

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

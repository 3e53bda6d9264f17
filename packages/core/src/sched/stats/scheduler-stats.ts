/**
 * On the calling thread alone (no other processor), one ready task in this many is timed.
 * Timing a task costs three `performance.now()` calls (about 65 ns each on a loaded 2-core VM)
 * against about 200-600 ns for the whole of a trivial inline task; one in 32 keeps the cost
 * near 1%.
 */
export const SAMPLE_EVERY = 32;

/**
 * The counters of one scheduler that `stats()` reads: when counting began, settled tasks, and
 * the countdown to the next sampled task. Per-processor figures live on each slot's
 * `ProcessorStats`.
 */
export class SchedulerStats {
  /** When the scheduler was made (`performance.now()` ms). */
  readonly since = performance.now();
  /** Tasks settled with a value. */
  finished = 0;
  /** Tasks settled with an error (cancelled ones included). */
  failed = 0;
  /** Nested tasks that workers placed and ran themselves and that finished with a value. */
  ownedFinished = 0;
  /** Nested tasks that workers placed themselves and that failed. */
  ownedFailed = 0;
  /**
   * Ready tasks until the next one sampled while only the calling thread runs tasks (the first
   * sample is the SAMPLE_EVERY-th: the very first run of a context is slow while V8 warms up).
   */
  countdown = SAMPLE_EVERY;
  /** Tasks whose wait was timed while there was a choice of processor. */
  stamped = 0;
}

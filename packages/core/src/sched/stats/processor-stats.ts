import type { RecordableHistogram } from 'node:perf_hooks';
import { HIGHEST_US, PendingDurations } from './pending-durations.js';

/** Percentiles of a set of durations, in ms (all 0 while `count` is 0). */
export interface DurationSummary {
  /** Durations recorded. */
  count: number;
  /** Median. */
  p50: number;
  /** 90th percentile. */
  p90: number;
  /** 99th percentile. */
  p99: number;
  /** Longest. */
  max: number;
  /** Arithmetic mean. */
  mean: number;
}

/**
 * What the scheduler has seen of one processor (held by its `ProcSlot`): runs finished there,
 * their summed run time, and HDR histograms (node's `perf_hooks.createHistogram`, in µs) of
 * run and wait times, made on first use and filled a few dozen durations at a time (`PendingDurations`). Only the
 * scheduler's thread records; `stats()` reads.
 */
export class ProcessorStats {
  /** Task runs that finished there with a value. */
  tasks = 0;
  /** Of those, the runs whose duration was measured (all, except on a sampled calling thread). */
  timed = 0;
  /** Sum of the measured run times (ms). */
  timedMs = 0;
  /** When the scheduler got this processor (`performance.now()` ms). */
  readonly addedAt = performance.now();
  private readonly run = new PendingDurations();
  private readonly wait = new PendingDurations();

  /** A run of `ms` finished. */
  recordRun(ms: number): void {
    this.tasks++;
    this.timed++;
    this.timedMs += ms;
    this.run.add(toMicroseconds(ms));
  }

  /** A task started `ms` after it was ready. */
  recordWait(ms: number): void {
    this.wait.add(toMicroseconds(ms));
  }

  /** Estimated busy time (ms): the measured runs, scaled up to all runs when only some were timed. */
  busyMs(): number {
    if (this.timed === 0 || this.timed === this.tasks) return this.timedMs;
    return (this.timedMs / this.timed) * this.tasks;
  }

  /** Run-time percentiles (ms). */
  runSummary(): DurationSummary {
    return summarize(this.run.recorded());
  }

  /** Wait-time percentiles (ms). */
  waitSummary(): DurationSummary {
    return summarize(this.wait.recorded());
  }
}

/** Whole µs, at least 1 (the histogram's lowest value) and at most `HIGHEST_US`. */
function toMicroseconds(ms: number): number {
  const us = Math.round(ms * 1000);
  return Math.min(HIGHEST_US, Math.max(1, us));
}

function summarize(h: RecordableHistogram | undefined): DurationSummary {
  if (h === undefined || h.count === 0)
    return { count: 0, p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  const ms = (us: number): number => Math.round(us) / 1000;
  return {
    count: h.count,
    p50: ms(h.percentile(50)),
    p90: ms(h.percentile(90)),
    p99: ms(h.percentile(99)),
    max: ms(h.max),
    mean: ms(h.mean),
  };
}

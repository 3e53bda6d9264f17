import { createHistogram, type RecordableHistogram } from 'node:perf_hooks';

/**
 * Durations a `PendingDurations` holds before it records them in its histogram: a task's
 * completion then stores a number, and node's `record` (its checks and a call into C++, two a
 * task on the scheduler's thread, on code and data gone cold while the task ran) runs in a
 * loop of this many, warm.
 */
const PENDING = 64;

/**
 * Durations (whole µs) on their way into an HDR histogram (node's `perf_hooks.createHistogram`,
 * two significant figures) made on first use, as are the few dozen held before it.
 */
export class PendingDurations {
  private histogram: RecordableHistogram | undefined = undefined;
  private pending: Float64Array | undefined = undefined;
  private count = 0;

  /** Adds a duration of `us` whole µs, within the histogram's range (`HIGHEST_US`). */
  add(us: number): void {
    const pending = (this.pending ??= new Float64Array(PENDING));
    pending[this.count++] = us;
    if (this.count === PENDING) this.flush();
  }

  /** The histogram with every duration added so far in it; undefined before the first. */
  recorded(): RecordableHistogram | undefined {
    this.flush();
    return this.histogram;
  }

  private flush(): void {
    const n = this.count;
    if (n === 0) return;
    const h = (this.histogram ??= createHistogram({ lowest: 1, highest: HIGHEST_US, figures: 2 }));
    const pending = this.pending!;
    for (let i = 0; i < n; i++) h.record(pending[i]!);
    this.count = 0;
  }
}

/**
 * Longest duration the histograms hold, in µs (about 12.7 days); a longer one is recorded as
 * this. With two significant figures each histogram takes about 35 KB.
 */
export const HIGHEST_US = 2 ** 40;

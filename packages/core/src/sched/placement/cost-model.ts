import type { Processor } from '../../processor/processor.js';
import { functionId } from '../../travel/function-ref.js';

/** Running mean of one function's run time. */
interface RunStats {
  meanMs: number;
  count: number;
  /**
   * `meanMs` as of its last refresh (every 16 samples once warmed up), in a field V8 keeps
   * tagged (see `newRunStats`): every task placed copies this one boxed number into its
   * `estimate` instead of boxing a fresh one (16 bytes per task in flight).
   */
  estimate: number;
  /**
   * Like `meanMs`, but each sample counted at most 4× this value: a run stretched by the
   * machine's load (a thread descheduled mid-run: 1 ms for a 2 µs function) moves it by a fifth
   * at most. What `typicalRun` answers: whether a function is tiny, which one slow sample should
   * not overturn for the next hundred runs.
   */
  typical: number;
}

/**
 * A new `RunStats`. Its `estimate` first holds `null`, so V8 gives the field a tagged
 * representation that later numbers keep: a load of it is a pointer to the number already
 * boxed, not a new box, which a field V8 stores as a double would need.
 */
function newRunStats(ms: number): RunStats {
  const stats: RunStats = {
    meanMs: ms,
    count: 1,
    estimate: null as unknown as number,
    typical: ms,
  };
  stats.estimate = ms;
  return stats;
}

/** What a task costs when nothing has been learned about its function yet (ms). */
export const UNKNOWN_RUN_MS = 0.05;

/**
 * The scheduler's cost model: run time learned per function signature (function, by its
 * source or module export, and argument count), bandwidth learned per kind of move, and helpers to estimate when a task placed on a
 * processor would finish. Estimates, never a fixed order.
 */
export class CostModel {
  /** By function id (per source text, see `functionId`), then by argument count. */
  private readonly runs = new Map<number, Map<number, RunStats>>();
  private readonly bandwidth = new Map<string, number>();

  /**
   * The stats of the last function and argument count looked up: a burst of tasks of one
   * function (the common case) skips `functionId` and two map lookups on each placement and
   * each completion. Holds that one function until another is looked up.
   */
  private lastFn: unknown = undefined;
  private lastArity = -1;
  private lastStats: RunStats | undefined = undefined;

  /** The stats of `fn` with `arity` arguments, if any were recorded. */
  private statsOf(fn: Function, arity: number): RunStats | undefined {
    if (fn === this.lastFn && arity === this.lastArity) return this.lastStats;
    const stats = this.runs.get(functionId(fn))?.get(arity);
    if (stats !== undefined) {
      this.lastFn = fn;
      this.lastArity = arity;
      this.lastStats = stats;
    }
    return stats;
  }

  /** Records that `fn` with `arity` arguments ran for `ms`. */
  recordRun(fn: unknown, arity: number, ms: number): void {
    if (typeof fn !== 'function') return;
    const stats = this.statsOf(fn, arity);
    if (!stats) {
      const key = functionId(fn);
      let byArity = this.runs.get(key);
      if (!byArity) this.runs.set(key, (byArity = new Map()));
      byArity.set(arity, newRunStats(ms));
      return;
    }
    const count = ++stats.count;
    // Exponential moving average after a warm-up: adapts when inputs change size.
    const weight = count < 16 ? 1 / count : 1 / 16;
    stats.meanMs += (ms - stats.meanMs) * weight;
    stats.typical += (Math.min(ms, 4 * stats.typical) - stats.typical) * weight;
    if (count < 16 || (count & 15) === 0) stats.estimate = stats.meanMs;
  }

  /** Estimated run time of `fn` with `arity` arguments, in ms. */
  estimateRun(fn: unknown, arity: number): number {
    if (typeof fn !== 'function') return UNKNOWN_RUN_MS;
    return this.statsOf(fn, arity)?.estimate ?? UNKNOWN_RUN_MS;
  }

  /**
   * Typical run time of `fn` with `arity` arguments (ms; slow outliers damped, see
   * `RunStats.typical`), or undefined before it has been timed.
   */
  typicalRun(fn: unknown, arity: number): number | undefined {
    if (typeof fn !== 'function') return undefined;
    return this.statsOf(fn, arity)?.typical;
  }

  /**
   * Whether `fn` with `arity` arguments has been timed at least `samples` times and typically
   * runs under `belowMs` (`typicalRun`): one look-up, and no number boxed, per question.
   */
  runsUnder(fn: unknown, arity: number, samples: number, belowMs: number): boolean {
    if (typeof fn !== 'function') return false;
    const stats = this.statsOf(fn, arity);
    return stats !== undefined && stats.count >= samples && stats.typical < belowMs;
  }

  /** How many times `fn` with `arity` arguments has been timed. */
  samples(fn: unknown, arity: number): number {
    if (typeof fn !== 'function') return 0;
    return this.statsOf(fn, arity)?.count ?? 0;
  }

  /** Records a measured transfer of `bytes` in `ms` between two processors. */
  recordMove(from: Processor, to: Processor, bytes: number, ms: number): void {
    if (bytes < 4096 || ms <= 0) return; // too small to say anything about bandwidth
    const key = linkKind(from, to);
    const measured = bytes / ms;
    const known = this.bandwidth.get(key);
    this.bandwidth.set(key, known === undefined ? measured : known + (measured - known) / 8);
  }

  /** Bytes per ms between two processors (measured, else a default by distance). */
  bandwidthBytesPerMs(from: Processor, to: Processor): number {
    const key = linkKind(from, to);
    const known = this.bandwidth.get(key);
    if (known !== undefined) return known;
    if (from.worker === to.worker) return 1_000_000; // ~1 GB/s: a copy between threads
    return 300_000; // ~300 MB/s: a pipe or socket
  }

  /** Milliseconds to move `bytes` from `from` to `to` (0 when they share memory). */
  moveCost(from: Processor, to: Processor, bytes: number): number {
    if (from.id === to.id || bytes <= 0) return 0;
    return bytes / this.bandwidthBytesPerMs(from, to);
  }
}

function linkKind(from: Processor, to: Processor): string {
  return from.worker === to.worker ? `${from.kind}>${to.kind}` : `${from.kind}>${to.kind}:remote`;
}

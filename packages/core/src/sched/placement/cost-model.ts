import type { Processor } from '../../processor/processor.js';
import { functionId } from '../../travel/function-ref.js';

/** Running mean of one function's run time. */
interface RunStats {
  meanMs: number;
  count: number;
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

  /** Records that `fn` with `arity` arguments ran for `ms`. */
  recordRun(fn: unknown, arity: number, ms: number): void {
    if (typeof fn !== 'function') return;
    const key = functionId(fn);
    let byArity = this.runs.get(key);
    if (!byArity) this.runs.set(key, (byArity = new Map()));
    const stats = byArity.get(arity);
    if (!stats) {
      byArity.set(arity, { meanMs: ms, count: 1 });
      return;
    }
    stats.count++;
    // Exponential moving average after a warm-up: adapts when inputs change size.
    const weight = stats.count < 16 ? 1 / stats.count : 1 / 16;
    stats.meanMs += (ms - stats.meanMs) * weight;
  }

  /** Estimated run time of `fn` with `arity` arguments, in ms. */
  estimateRun(fn: unknown, arity: number): number {
    if (typeof fn !== 'function') return UNKNOWN_RUN_MS;
    return this.runs.get(functionId(fn))?.get(arity)?.meanMs ?? UNKNOWN_RUN_MS;
  }

  /** How many times `fn` with `arity` arguments has been timed. */
  samples(fn: unknown, arity: number): number {
    if (typeof fn !== 'function') return 0;
    return this.runs.get(functionId(fn))?.get(arity)?.count ?? 0;
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

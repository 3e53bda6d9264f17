import type { SchedulerState, SlotTable } from '../scheduler-state.js';
import type { DurationSummary } from './processor-stats.js';

/** One processor's figures in `Stats` (Piscina's `utilization` and run/wait histograms). */
export interface ProcessorUtilization {
  /** The processor's id (`Processor.id`, e.g. `thread:1:2`). */
  id: string;
  /** Its kind (`Processor.kind`, e.g. `thread`). */
  kind: string;
  /** The OS process it is in (1: the scheduler's own). */
  worker: number;
  /** True once removed from the context (`rmProcs`, or its worker lost). */
  removed: boolean;
  /** Task runs that finished there with a value. */
  tasks: number;
  /** Summed run time of those runs (ms; estimated from the timed sample on a lone calling thread). */
  busyMs: number;
  /** `busyMs` over the ms since the processor joined (or since the context began); overlapping async runs can take it past 1. */
  busyFraction: number;
  /** Run times (ms) of the timed runs. */
  runMs: DurationSummary;
  /** Times (ms) from ready (every input there) to started, of the timed tasks. */
  waitMs: DurationSummary;
}

/** What `ctx.stats()` / `stats()` return: plain data, safe to `JSON.stringify`. */
export interface Stats {
  /** When counting began: the context's creation, in ms since the epoch (like `Date.now()`). */
  since: number;
  /** Ms from `since` to now. */
  elapsedMs: number;
  /** Every processor the context has had, in order of addition (removed ones too). */
  processors: ProcessorUtilization[];
  /** Tasks of the context: `spawned === finished + failed + unfinished`. */
  tasks: {
    /** Handed to the scheduler so far. */
    spawned: number;
    /** Settled with a value. */
    finished: number;
    /** Settled with an error (cancelled included). */
    failed: number;
    /** Waiting or running now (`ctx.queueSize`). */
    unfinished: number;
    /**
     * Nested tasks that the worker whose task spawned them placed and ran itself, never handed
     * to the scheduler (so not counted above), as the workers last reported (every 50 ms):
     * how many finished with a value, how many failed.
     */
    placedByWorkers: { finished: number; failed: number };
  };
}

/** The figures of scheduler `s` now (`Context.stats`). */
export function collectStats(s: SlotTable & Pick<SchedulerState, 'stats' | 'queueLimit'>): Stats {
  const now = performance.now();
  const since = s.stats.since;
  const processors: ProcessorUtilization[] = [];
  for (const slot of s.slotById.values()) {
    const p = slot.stats;
    const windowMs = now - Math.max(since, p.addedAt);
    // Scaled up from a sample: never past the whole window (one thread runs one sync task at a time).
    const busyMs = p.timed < p.tasks ? Math.min(p.busyMs(), windowMs) : p.busyMs();
    processors.push({
      id: slot.proc.id,
      kind: slot.proc.kind,
      worker: slot.proc.worker,
      removed: slot.removed,
      tasks: p.tasks,
      busyMs: round(busyMs),
      busyFraction: windowMs > 0 ? round(busyMs / windowMs, 4) : 0,
      runMs: p.runSummary(),
      waitMs: p.waitSummary(),
    });
  }
  const { finished, failed } = s.stats;
  const unfinished = s.queueLimit.unfinished;
  return {
    since: Math.round(performance.timeOrigin + since),
    elapsedMs: round(now - since),
    processors,
    tasks: {
      spawned: finished + failed + unfinished,
      finished,
      failed,
      unfinished,
      placedByWorkers: { finished: s.stats.ownedFinished, failed: s.stats.ownedFailed },
    },
  };
}

function round(x: number, digits = 3): number {
  const k = 10 ** digits;
  return Math.round(x * k) / k;
}

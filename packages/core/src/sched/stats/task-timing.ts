import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { Scheduler } from '../scheduler.js';

/**
 * On the calling thread alone (no other processor), one ready task in this many is timed.
 * Timing a task costs three `performance.now()` calls (about 65 ns each on a loaded 2-core VM)
 * against about 200-600 ns for the whole of a trivial inline task; one in 32 keeps the cost
 * near 1%. With other processors every task is timed: run times then steer placement anyway,
 * and a task sent to a worker costs microseconds.
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
  /**
   * Ready tasks until the next one sampled while only the calling thread runs tasks (the first
   * sample is the SAMPLE_EVERY-th: the very first run of a context is slow while V8 warms up).
   */
  countdown = SAMPLE_EVERY;
}

/**
 * A task became ready (`Scheduler.makeReady`): notes when, for its wait, if it is timed (every
 * task while there is a choice of processor, else one in `SAMPLE_EVERY`).
 */
export function noteReady(s: Scheduler, task: DTask<unknown>): void {
  if (!s.learnInline) {
    if (--s.stats.countdown !== 0) return;
    s.stats.countdown = SAMPLE_EVERY;
  }
  task.readyAt = performance.now();
}

/**
 * A timed task starts on the calling thread at `startedAt` (run-inline.ts): records its wait
 * when it was timed from ready.
 */
export function noteInlineStart(task: DTask<unknown>, slot: ProcSlot, startedAt: number): void {
  const readyAt = task.readyAt;
  if (readyAt === undefined) return;
  task.readyAt = undefined;
  slot.stats.recordWait(startedAt - readyAt);
}

/**
 * A task finished after running `durationMs` (`Scheduler.complete`/`completeRemote`): records
 * the run on its processor, and for one run elsewhere its wait, from ready to its start, taken
 * as now less its run time (the report's trip back counts as wait). Tasks sent ahead to the
 * worker making their input were never ready here: no wait is recorded for them.
 */
export function noteRun(s: Scheduler, task: DTask<unknown>, durationMs: number): void {
  const proc = task.proc;
  if (proc === undefined) return;
  const slot = s.slotById.get(proc.id);
  if (slot === undefined) return;
  slot.stats.recordRun(durationMs);
  const readyAt = task.readyAt;
  if (readyAt === undefined) return;
  task.readyAt = undefined;
  if (slot.executor.inline || (task.flags & TaskFlags.SentAhead) !== 0) return;
  const waited = performance.now() - durationMs - readyAt;
  slot.stats.recordWait(waited > 0 ? waited : 0);
}

/** A task settled (`Scheduler.finished`): counts it as finished or failed. */
export function noteSettled(s: Scheduler, task: DTask<unknown>): void {
  if (task.state === TaskState.Failed) s.stats.failed++;
  else s.stats.finished++;
}

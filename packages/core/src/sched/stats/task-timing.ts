import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { Scheduler } from '../scheduler.js';

/**
 * On the calling thread alone (no other processor), one ready task in this many is timed.
 * Timing a task costs three `performance.now()` calls (about 65 ns each on a loaded 2-core VM)
 * against about 200-600 ns for the whole of a trivial inline task; one in 32 keeps the cost
 * near 1%.
 */
export const SAMPLE_EVERY = 32;

/**
 * With a choice of processor every run is timed (workers report each run's duration, and
 * inline runs are timed for placement), and so is the wait of the first `WAIT_ALL_FIRST` ready
 * tasks; after those, of one in `WAIT_SAMPLE_EVERY`. A wait costs two `performance.now()`
 * calls and a number on the task, about 150 ns against 3-4 µs of the scheduler's time per
 * task sent to a thread: 4-5% for a stream of trivial tasks, under 1% sampled.
 */
export const WAIT_ALL_FIRST = 1024;

/** See `WAIT_ALL_FIRST`. */
export const WAIT_SAMPLE_EVERY = 8;

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
  /** Tasks whose wait was timed while there was a choice of processor. */
  stamped = 0;
}

/**
 * A task became ready (`Scheduler.makeReady`): notes when, for its wait, if it is timed (with
 * a choice of processor the first `WAIT_ALL_FIRST`, then one in `WAIT_SAMPLE_EVERY`; on the
 * calling thread alone, one in `SAMPLE_EVERY`, which times its run too).
 */
export function noteReady(s: Scheduler, task: DTask<unknown>): void {
  const st = s.stats;
  const choice = s.learnInline;
  if (choice && st.stamped < WAIT_ALL_FIRST) {
    if (++st.stamped === WAIT_ALL_FIRST) st.countdown = WAIT_SAMPLE_EVERY;
  } else {
    if (--st.countdown > 0) return;
    st.countdown = choice ? WAIT_SAMPLE_EVERY : SAMPLE_EVERY;
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
  slot.stats.recordWait(Math.max(0, waited));
}

/** A task settled (`Scheduler.finished`): counts it as finished or failed. */
export function noteSettled(s: Scheduler, task: DTask<unknown>): void {
  if (task.state === TaskState.Failed) s.stats.failed++;
  else s.stats.finished++;
}

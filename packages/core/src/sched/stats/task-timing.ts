import type { DTask } from '../../task/dtask.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import type { ProcSlot } from '../placement/proc-slot.js';
import type { SchedulerState, SlotTable } from '../scheduler-state.js';
import { SAMPLE_EVERY } from './scheduler-stats.js';

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
 * A task became ready (`Scheduler.makeReady`): notes when, for its wait, if it is timed (with
 * a choice of processor the first `WAIT_ALL_FIRST`, then one in `WAIT_SAMPLE_EVERY`; on the
 * calling thread alone, one in `SAMPLE_EVERY`, which times its run too).
 */
export function noteReady(
  s: Pick<SchedulerState, 'stats' | 'learnInline'>,
  task: DTask<unknown>,
): void {
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
export function noteRun(s: SlotTable, task: DTask<unknown>, durationMs: number): void {
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
export function noteSettled(s: Pick<SchedulerState, 'stats'>, task: DTask<unknown>): void {
  if (task.state === TaskState.Failed) s.stats.failed++;
  else s.stats.finished++;
}

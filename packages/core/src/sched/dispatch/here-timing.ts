// Which runs of a task run at once on the calling thread (`runHere`) are timed for the cost
// model, which decides from them whether its function is still tiny enough to run here.

/**
 * A function whose learned run time is under this (ms) may run on the calling thread at once
 * when a task queue asks for it (`SubmitTask`'s `here`): a task sent to a worker thread costs
 * the calling thread about 10-20 µs of messages, placement and completion, more than the work.
 */
export const HERE_RUN_MS = 0.02;

/**
 * One in this many runs by `runHere` is timed for the cost model (`hereRunTimed`): two clock
 * reads are about a tenth of what the calling thread spends on such a task.
 */
export const HERE_TIMED_EVERY = 4;

/**
 * Runs by `runHere` timed, each, after one was timed at `HERE_RUN_MS` or more: a function whose
 * runs grow is then followed run by run, as if every run were timed, from its first slow sample
 * on (at most `HERE_TIMED_EVERY - 1` slow runs later than that).
 */
export const HERE_TIME_ALL_AFTER_SLOW = 64;

/** Runs by `runHere` until the next one timed for the cost model. */
let untilRunTimed = 0;

/** Runs by `runHere` still timed, each, after a slow one (`noteHereRun`). */
let timeEvery = 0;

/** Whether the run by `runHere` starting now is timed for the cost model (see `HERE_TIMED_EVERY`). */
export function hereRunTimed(): boolean {
  if (timeEvery > 0) {
    timeEvery--;
    return true;
  }
  if (--untilRunTimed > 0) return false;
  untilRunTimed = HERE_TIMED_EVERY;
  return true;
}

/** A run by `runHere` took `ms`: from a slow one on, the next runs here are all timed. */
export function noteHereRun(ms: number): void {
  if (ms >= HERE_RUN_MS) timeEvery = HERE_TIME_ALL_AFTER_SLOW;
}

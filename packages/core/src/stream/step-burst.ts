/**
 * What a burst of streaming steps (steps run in one synchronous loop while every input has a
 * value buffered) stopped at: the loop that ran it then waits, or handles what it handed over.
 */

/** An input is empty (or the task is stopped, or at `streamMaxEvals`, or a send is due). */
export const INPUT = 0;
/** A consumer was full: the burst hands over the promise of its room. */
export const EMITTING = 1;
/** The function returned a promise or a `finishStream`: the burst hands that over. */
export const RETURNED = 2;
/** It ran `BURST` steps: the loop lets timers and I/O in when its time slice is over. */
export const SLICED = 3;

/** Steps one burst runs at most. */
export const BURST = 256;

/**
 * Calls a plain step `fn` with `args`, as `fn(...args)`: one or two arguments are passed
 * directly (a spread call costs a few nanoseconds more, which a burst pays per step).
 */
export function callStep(fn: (...a: unknown[]) => unknown, args: unknown[]): unknown {
  switch (args.length) {
    case 1:
      return fn(args[0]);
    case 2:
      return fn(args[0], args[1]);
    default:
      return fn(...args);
  }
}

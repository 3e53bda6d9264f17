import { AsyncLocalStorage } from 'node:async_hooks';
import type { Frame } from './frame-contract.js';

/**
 * The async context of task frames (an `AsyncLocalStorage`), and when it is on.
 *
 * In Node 20 an `AsyncLocalStorage`, once used, turns on promise hooks for the whole process,
 * and every promise pays for them from then on, the user's code included: a `for await` over
 * an async generator of 1,000,000 values took 148 ms, and 395 ms once one had been used. Only
 * what must keep a frame across awaits uses it (an async task function, an async `withOptions`
 * region or task queue), and it is turned off again once none of those runs continues and none
 * has started for `QUIET_MS`: not at once, since a stream of async steps or a chain of async
 * tasks would turn it off and on between every two of them (about 5 µs each time, and slower
 * steps: 10% in an in-process stream with an async step, turned off at each turn of the loop).
 */

/** How long no async run may have started before the async context is turned off (ms). */
export const QUIET_MS = 10;

const KEY = Symbol.for('dtask.frames');

/** The one AsyncLocalStorage of dtask frames (shared by ESM/CJS copies through globalThis). */
export const frames: AsyncLocalStorage<Frame> = ((globalThis as Record<symbol, unknown>)[KEY] ??=
  new AsyncLocalStorage<Frame>()) as AsyncLocalStorage<Frame>;

const STORE_KEY = Symbol.for('dtask.framesHeld');

/**
 * Runs of `frames` that may still continue (`held`) and started so far (`runs`), shared by
 * every copy of the package in this thread; `sticky` once `holdFrames` was called; `checking`
 * while a turn-off check is due.
 */
const store: { held: number; runs: number; sticky: boolean; checking: boolean } = ((
  globalThis as Record<symbol, unknown>
)[STORE_KEY] ??= { held: 0, runs: 0, sticky: false, checking: false }) as {
  held: number;
  runs: number;
  sticky: boolean;
  checking: boolean;
};

const AsyncFunction = (async () => {}).constructor;

/**
 * Runs `fn(...args)` with `frame` as the async context (`undefined`: none), held until it
 * returns or, when it returns a promise, until that settles. The promise is returned in place of
 * `fn`'s (one made by `finally`), so that one nobody handles still reports its rejection.
 */
export function runInStore<R, A extends unknown[]>(
  frame: Frame | undefined,
  fn: (...args: A) => R,
  ...args: A
): R {
  const result = runAsyncInStore(frame, fn, args) as R;
  if (result instanceof Promise) return result.finally(release) as R;
  release();
  return result;
}

/**
 * Runs async function `fn(...args)` with `frame` as the async context, held until the caller
 * calls `asyncRunSettled` once the promise it returned has settled, or hands the promise to
 * `settleInFrame` (released at once if it throws).
 */
export function runAsyncInStore(frame: Frame | undefined, fn: Function, args: unknown[]): unknown {
  store.held++;
  store.runs++;
  try {
    return frames.run(frame as Frame, Reflect.apply, fn, undefined, args);
  } catch (error) {
    release();
    throw error;
  }
}

/**
 * Ends the hold of `fn`'s run on the async context: for a task's runner, in the handlers it
 * attaches anyway to the promise `callInFrame` returned (a closure or promise of its own would
 * cost every async task more, with the hooks on: in a profile, twice the garbage collection).
 * Nothing when `fn` is not an async function.
 */
export function asyncRunSettled(fn: unknown): void {
  if (fn instanceof AsyncFunction) release();
}

/**
 * Ends the hold of `fn`'s run on the async context once `promise` (what `callInFrame` returned
 * from it) settles, for a caller that handles the promise itself; nothing when `fn` is not async.
 */
export function settleInFrame(fn: unknown, promise: unknown): void {
  if (fn instanceof AsyncFunction) (promise as Promise<unknown>).then(release, release);
}

/**
 * Keeps `frames` on from now on: `setTls` sets the context for the rest of an execution that
 * no run bounds (`AsyncLocalStorage.enterWith`).
 */
export function holdFrames(): void {
  store.sticky = true;
}

/** Whether `frames` is on: for tests. */
export function framesInUse(): boolean {
  return (frames as unknown as { enabled?: boolean }).enabled ?? store.held > 0;
}

function release(): void {
  if (--store.held > 0 || store.sticky || store.checking) return;
  store.checking = true;
  checkLater();
}

/** Turns `frames` off once no run continues and none started for `QUIET_MS`. */
function checkLater(): void {
  const runs = store.runs;
  setTimeout(() => {
    if (store.held > 0 || store.sticky)
      store.checking = false; // the next release checks again
    else if (store.runs !== runs) checkLater();
    else {
      store.checking = false;
      frames.disable();
    }
  }, QUIET_MS).unref();
}

import { ArgumentError } from '../errors/errors.js';
import { checkOptions, type OptionsShape } from '../options/index.js';
import { callInFrame, currentFrame, ScopedFrame, settleInFrame } from '../task/frame.js';
import { isAsyncFunction } from './run-stream-node.js';
import { StreamRegion } from './stream-region.js';

/** Options of `spawnStreaming`. */
export interface SpawnStreamingOptions {
  /**
   * When every downstream task of the region has finished, its upstream tasks stop too
   * (default true). With false, a producer runs on until it finishes itself.
   */
  teardown?: boolean;
}

/** What `spawnStreaming`'s options may hold, with the messages a bad one gets. */
const SPAWN_STREAMING_OPTIONS: OptionsShape<keyof SpawnStreamingOptions> = {
  known: ['teardown'],
  notObject: () => 'spawnStreaming(fn, options?): options must be an object',
  unknownKey: (key, known) =>
    `spawnStreaming: unknown option '${key}'. Known options: ${known.join(', ')}`,
  fields: {
    // null reads as the default, as undefined does.
    teardown: (v) =>
      v === null || typeof v === 'boolean'
        ? undefined
        : 'spawnStreaming: option teardown must be a boolean',
  },
};

/**
 * Dagger's `spawn_streaming`: every task spawned directly inside `fn` becomes a streaming task,
 * which calls its function once per step with the next value of each streaming-task argument.
 * None starts until `fn` returns (or its promise settles), so no value is lost while the DAG is
 * built. An async `fn` must not wait on or read its tasks before it settles, nor return one
 * alone (its promise would wait for it): that throws `ConcurrencyViolationError`; it returns
 * them in an array or object. Returns what `fn` returns.
 */
export function spawnStreaming<R>(fn: () => R, options: SpawnStreamingOptions = {}): R {
  if (typeof fn !== 'function') {
    throw new ArgumentError(
      'spawnStreaming(fn, options?): fn must be a function that spawns the streaming tasks',
    );
  }
  checkOptions(options, SPAWN_STREAMING_OPTIONS);
  const teardown = options.teardown ?? true;
  const region = new StreamRegion(teardown, isAsyncFunction(fn));
  let result: R;
  try {
    // As withTaskQueue, but a plain function gets the frame without AsyncLocalStorage, whose
    // promise hooks, once on, slow every promise of the process (and so every stream).
    const outer = currentFrame();
    const frame = new ScopedFrame(outer?.frameTask, outer?.propagated ?? {}, region);
    result = callInFrame(frame, fn, []) as R;
  } catch (error) {
    region.abandon(error);
    throw error;
  }
  // Only an async function's promise defers the start: a task (itself thenable) is a value.
  if (result instanceof Promise) {
    settleInFrame(fn, result);
    return (result as Promise<unknown>).then(
      (value) => {
        region.start();
        return value;
      },
      (error: unknown) => {
        region.abandon(error);
        throw error;
      },
    ) as R;
  }
  region.start();
  return result;
}

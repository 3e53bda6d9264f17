import { ArgumentError, withTaskQueue } from '@dtask/core';
import { checkOptions, isOneOf, rule } from '@dtask/core/plugin';
import { DatadepsRegion } from './datadeps-region.js';
import { regionSettled } from './region-settled.js';

/** Options of `spawnDatadeps`. */
export interface DatadepsOptions {
  /**
   * The order in which the region's tasks are considered: `'inorder'` (submission order, the
   * only one supported; Dagger's `:bfs`/`:dfs` are not).
   */
  traversal?: 'inorder';
  /**
   * Whether a task may run on the calling thread, at once, when its data is all in this
   * thread's memory (no `Chunk`, `DTask` or `ChunkView` argument), it has no scope or processor
   * of its own, what it waits for has finished, and its function's learned run time is tiny
   * (under about 20 µs, after a few timed runs): cheaper than sending it to a worker. Default
   * true; false sends every task to the scheduler as usual.
   */
  inline?: boolean;
}

/**
 * Dagger's `spawn_datadeps` (seed 002): runs `fn`, in which tasks spawned directly may write
 * their arguments marked `Out(x)`/`InOut(x)` (unmarked = `In(x)`); tasks whose arguments
 * alias run in submission order, others in parallel, so the result equals running the tasks
 * one after another. Then it waits for every task of the region, rethrows the first error
 * (`fn`'s own, else the first task failure to arrive, a `DTaskFailedError`), and resolves to
 * `fn`'s result (a `DTask` returned by `fn` is awaited, as any thenable an async function
 * returns). Inside the region, `fetch`/`wait`/`await` of a region task throws
 * `ConcurrencyViolationError`. Written data outside `SharedArrayBuffer`s is copied back to the
 * caller's objects when each task completes (`moveInPlace`).
 */
export async function spawnDatadeps<R>(
  fn: () => R,
  options: DatadepsOptions = {},
): Promise<Awaited<R>> {
  if (typeof fn !== 'function') {
    throw new ArgumentError('spawnDatadeps(fn, options?): fn must be a function');
  }
  checkOptions(options, {
    known: ['traversal', 'inline'],
    notObject: () =>
      "spawnDatadeps(fn, options?): options must be { traversal?: 'inorder', inline?: boolean }",
    unknownKey: (key, known) =>
      `spawnDatadeps: unknown option '${key}'. Known options: ${known.join(', ')}`,
    fields: {
      traversal: rule(
        isOneOf(['inorder']),
        (t) => `spawnDatadeps: traversal '${String(t)}' is not supported; use 'inorder'`,
      ),
      inline: rule(
        isOneOf([true, false]),
        (x) => `spawnDatadeps: inline must be true or false; got ${String(x)}`,
      ),
    },
  });
  const region = new DatadepsRegion(options.inline !== false);
  let result: R | undefined;
  let failure: { error: unknown } | undefined;
  try {
    result = withTaskQueue(region, fn);
    if (isThenable(result)) result = (await result) as R;
  } catch (error) {
    failure = { error };
  }
  region.close();
  const errors: unknown[] = [];
  await regionSettled(region.tasks, errors);
  if (failure) throw failure.error;
  if (errors.length > 0) throw errors[0];
  return result as Awaited<R>;
}

function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (
    (typeof x === 'object' || typeof x === 'function') &&
    x !== null &&
    typeof (x as PromiseLike<unknown>).then === 'function'
  );
}

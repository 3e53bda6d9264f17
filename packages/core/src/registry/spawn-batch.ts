import { isChunk } from '../chunk/chunk.js';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import type { DTask } from '../task/dtask.js';
import { normalizeOptions, type TaskOptions, type TaskOptionsInput } from '../task/options.js';
import { spawnEach } from '../task/spawn-task.js';
import type { Context } from './context.js';
import { currentScheduler } from './default-context.js';

/**
 * Spawns one task per entry of `argLists` (each entry is that task's argument array, not copied)
 * and pushes each onto `out` as it is made; may throw (spawn's errors) after pushing some.
 */
export type SpawnBatch = (argLists: readonly unknown[][], out: DTask<unknown>[]) => void;

/**
 * The batch spawner of `fn` with the normalized options `explicit`, into `context` (undefined:
 * the current one, the default context or a running task's own, read at each batch).
 */
export function batchOf(
  context: Context | undefined,
  explicit: TaskOptions,
  fn: unknown,
): SpawnBatch {
  return context === undefined
    ? (argLists, out) => spawnEach(currentScheduler(), explicit, fn, argLists, out)
    : (argLists, out) => context.spawnEach(explicit, fn, argLists, out);
}

/**
 * `spawn(options, fn, ...args)` for each `args` of `argLists`, into `context` (undefined: where
 * `spawn` goes, the default context or a running task's own), each task pushed onto `out` as it
 * is made: what a plugin's operation spawning many tasks of one function with the same options
 * calls (a block per task) instead of `spawn` per task. The options are checked and normalized
 * and `fn` checked once for the batch, the running task's frame read once; each task's
 * arguments are still checked, admitted and submitted as `spawn` does, in order. Throws what
 * `spawn` throws (`ArgumentError`, a closed context's error, `QueueFullError`), possibly after
 * pushing some tasks onto `out`.
 */
export function spawnBatch(
  context: Context | undefined,
  options: TaskOptionsInput,
  fn: unknown,
  argLists: readonly unknown[][],
  out: DTask<unknown>[],
): void {
  if (typeof fn !== 'function' && !isChunk(fn)) {
    throw new ArgumentError(
      `spawnBatch(context, options, f, argLists, out): f must be a function or a Chunk holding one; got ${describeValue(fn)}`,
    );
  }
  batchOf(context, normalizeOptions(options, 'spawnBatch'), fn)(argLists, out);
}

import type { Chunk } from '../chunk/chunk.js';
import type { DTask } from '../task/dtask.js';
import type { TaskOptionsInput } from '../task/options.js';
import { type SpawnArgs, spawnTask } from '../task/spawn-task.js';
import { currentScheduler } from './default-context.js';

/**
 * Dagger's `spawn`: schedules `f(...args)` and returns its `DTask` at once. Arguments that are
 * `DTask`s or `Chunk`s become dependencies and are replaced by their values. A plain object
 * before `f` gives the task's options. Inside a task it spawns into that task's context,
 * from any processor. Bad options, scope specifiers or targets throw `ArgumentError` at once.
 */
export function spawn<A extends unknown[], R>(
  f: (...args: A) => R,
  ...args: SpawnArgs<A>
): DTask<Awaited<R>>;
export function spawn<A extends unknown[], R>(
  f: Chunk<(...args: A) => R>,
  ...args: SpawnArgs<A>
): DTask<Awaited<R>>;
// Last, so that a mistyped option is reported against this overload ("the last overload").
export function spawn<A extends unknown[], R>(
  options: TaskOptionsInput,
  f: ((...args: A) => R) | Chunk<(...args: A) => R>,
  ...args: SpawnArgs<A>
): DTask<Awaited<R>>;
export function spawn(first: unknown, ...rest: unknown[]): DTask<unknown> {
  return spawnTask(currentScheduler(), first, rest);
}

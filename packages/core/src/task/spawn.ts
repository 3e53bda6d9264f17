import type { Chunk } from '../chunk/chunk.js';
import { currentScheduler } from '../registry/default-context.js';
import type { DTask } from './dtask.js';
import type { TaskOptionsInput } from './options.js';
import { type SpawnArgs, spawnTask } from './spawn-task.js';

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
  options: TaskOptionsInput,
  f: ((...args: A) => R) | Chunk<(...args: A) => R>,
  ...args: SpawnArgs<A>
): DTask<Awaited<R>>;
export function spawn<A extends unknown[], R>(
  f: Chunk<(...args: A) => R>,
  ...args: SpawnArgs<A>
): DTask<Awaited<R>>;
export function spawn(first: unknown, ...rest: unknown[]): DTask<unknown> {
  return spawnTask(currentScheduler(), first, rest);
}

import {
  type AbstractScope,
  ArgumentError,
  type Context,
  type DTask,
  spawn as defaultSpawn,
} from '@dtask/core';
import type { Block } from './kernels.js';

/** A `spawn` (core's or a context's) as the array's operations call it. */
export type SpawnFn = (...args: any[]) => DTask<Block>;

/** The spawn function of `context` (or core's `spawn`, the default context's). */
export function spawnerOf(context?: Context): SpawnFn {
  return (context ? context.spawn.bind(context) : defaultSpawn) as unknown as SpawnFn;
}

/**
 * The spawn options that place the block at grid `index` by `assign` (none without it: the
 * scheduler spreads the blocks over the processors in scope).
 */
export function placement(
  assign: ((index: readonly number[]) => AbstractScope) | undefined,
  index: readonly number[],
  what: string,
): { scope: AbstractScope }[] {
  if (assign === undefined) return [];
  if (typeof assign !== 'function') {
    throw new ArgumentError(`${what}: assign must be a function (gridIndex) => scope`);
  }
  return [{ scope: assign(index) }];
}

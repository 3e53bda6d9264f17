import {
  type AbstractScope,
  ArgumentError,
  type Context,
  type DTask,
  spawn as defaultSpawn,
  ExactScope,
  type Processor,
} from '@dtask/core';
import { defaultContext } from '@dtask/core/plugin';
import type { Block } from './kernels.js';

/** A `spawn` (core's or a context's) as the array's operations call it. */
export type SpawnFn = (...args: any[]) => DTask<Block>;

/** The spawn function of `context` (or core's `spawn`, the default context's). */
export function spawnerOf(context?: Context): SpawnFn {
  return (context ? context.spawn.bind(context) : defaultSpawn) as unknown as SpawnFn;
}

/**
 * The CPU processors an array's blocks are spread over by default: the worker threads of
 * `context` (this process's and worker processes'), in the context's order, without the main
 * thread unless it is the only one. Device processors (GPUs) are left to the scheduler.
 */
export function blockProcessors(context: Context | undefined): Processor[] {
  const procs = (context ?? defaultContext())
    .processors()
    .filter((p) => p.id.startsWith('thread:'));
  const workers = procs.filter((p) => p.id !== 'thread:1:1');
  return workers.length > 0 ? workers : procs;
}

/**
 * Where the block at flat grid index `k` of `count` goes: `assign`'s scope for its grid
 * `index` when given; else the array is cut into contiguous runs of blocks in column-major
 * grid order (slabs along the last dimension), one run per processor of `procs` and their
 * sizes differing by at most one, so that the blocks are spread evenly and neighbours live
 * together (a stencil's halos cross processors only at the seams between runs). With one
 * processor or none, no scope: the scheduler places it.
 */
export function placement(
  assign: ((index: readonly number[]) => AbstractScope) | undefined,
  index: readonly number[],
  what: string,
  spread?: { procs: readonly Processor[]; k: number; count: number },
): { scope: AbstractScope }[] {
  if (assign === undefined) {
    if (spread === undefined || spread.procs.length < 2) return [];
    const { procs, k, count } = spread;
    return [{ scope: new ExactScope(procs[Math.floor((k * procs.length) / count)]) }];
  }
  if (typeof assign !== 'function') {
    throw new ArgumentError(`${what}: assign must be a function (gridIndex) => scope`);
  }
  return [{ scope: assign(index) }];
}

/**
 * Spawn options that run a task reading `chunk` (its argument `arg`) where that block lives
 * (owner computes): on its CPU thread once it is placed; while it is not placed yet, the task
 * follows it to wherever the scheduler finds its data (`inPlaceArgs`: the task only reads it),
 * so a chain of operations stays on each block's thread. Blocks on a device (a GPU) are left
 * to the scheduler.
 */
export function ownerOf(
  chunk: DTask<Block>,
  arg: number,
): { scope?: ExactScope; inPlaceArgs?: number[] } {
  const proc = chunk.processor;
  if (proc === undefined) return { inPlaceArgs: [arg] };
  return proc.id.startsWith('thread:') ? { scope: new ExactScope(proc) } : {};
}

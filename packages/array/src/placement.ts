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

/** Dagger's named assignment strategies (its `:blockrow`, `:blockcol`, `:cyclicrow`, `:cycliccol`). */
export type NamedAssignment = 'arbitrary' | 'blockrow' | 'blockcol' | 'cyclicrow' | 'cycliccol';

/** Where each block is made: a scope per grid index, or one of Dagger's named strategies. */
export type Assignment = ((index: readonly number[]) => AbstractScope) | NamedAssignment;

const NAMED: readonly string[] = ['blockrow', 'blockcol', 'cyclicrow', 'cycliccol'];

/**
 * Where the block at flat grid index `k` of `count` goes: `assign`'s scope for its grid
 * `index` when given; else the array is cut into contiguous runs of blocks in column-major
 * grid order (slabs along the last dimension), one run per processor of `procs` and their
 * sizes differing by at most one, so that the blocks are spread evenly and neighbours live
 * together (a stencil's halos cross processors only at the seams between runs). With one
 * processor or none, no scope: the scheduler places it. A named `assign` places by the block's
 * grid index over `procs`: `'blockrow'`/`'blockcol'` in contiguous runs of rows (dimension 0) or
 * columns (the last), `'cyclicrow'`/`'cycliccol'` round-robin along them (Dagger's strategies).
 */
export function placement(
  assign: Assignment | undefined,
  index: readonly number[],
  what: string,
  spread?: { procs: readonly Processor[]; k: number; count: number; grid?: readonly number[] },
): { scope: AbstractScope }[] {
  if (assign === undefined || assign === 'arbitrary') {
    if (spread === undefined || spread.procs.length < 2) return [];
    const { procs, k, count } = spread;
    return [{ scope: new ExactScope(procs[Math.floor((k * procs.length) / count)]) }];
  }
  if (typeof assign === 'string' && NAMED.includes(assign)) {
    const procs = spread?.procs ?? [];
    if (procs.length === 0) return [];
    const grid = spread?.grid ?? index.map((i) => i + 1);
    const d = assign.endsWith('row') ? 0 : Math.max(0, index.length - 1);
    const i = index[d] ?? 0;
    if (assign.startsWith('cyclic')) return [{ scope: new ExactScope(procs[i % procs.length]) }];
    // Contiguous runs along dimension d, the first (n mod p) processors taking one more.
    const n = grid[d] ?? 1;
    const [q, extra] = [Math.floor(n / procs.length), n % procs.length];
    let p = 0;
    for (let end = q + (extra > 0 ? 1 : 0); i >= end; end += q + (p < extra ? 1 : 0)) p++;
    return [{ scope: new ExactScope(procs[Math.min(p, procs.length - 1)]) }];
  }
  if (typeof assign !== 'function') {
    throw new ArgumentError(
      `${what}: assign must be a function (gridIndex) => scope or one of ${NAMED.map((n) => `'${n}'`).join(', ')}, 'arbitrary' (Dagger's :blockrow, …); got ${String(assign)}`,
    );
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
  if (proc === undefined) {
    let follow = following[arg];
    if (follow === undefined) following[arg] = follow = Object.freeze({ inPlaceArgs: [arg] });
    return follow;
  }
  if (!proc.id.startsWith('thread:')) return SCHEDULER_PLACES;
  return onThreadOf(proc);
}

/**
 * `ownerOf`, where a block not placed yet whose task names one CPU thread (its `scope` an
 * `ExactScope`: a block `distribute` or an earlier operation spawned there) counts as on that
 * thread already: what an operation spawning a group per thread's run of blocks reads.
 */
export function plannedOwnerOf(
  chunk: DTask<Block>,
  arg: number,
): { scope?: ExactScope; inPlaceArgs?: number[] } {
  if (chunk.processor === undefined) {
    const scope = chunk.options.scope;
    const proc = scope instanceof ExactScope ? scope.processor : undefined;
    if (proc?.id.startsWith('thread:')) return onThreadOf(proc);
  }
  return ownerOf(chunk, arg);
}

/**
 * One options object per thread, shared by every task placed there: the scheduler keeps the
 * processors a scope object allows, so a block task does not judge its scope anew (and an
 * operation spawns the tasks of one thread's run of blocks together).
 */
function onThreadOf(proc: Processor): { scope: ExactScope } {
  let options = onThread.get(proc.id);
  if (options === undefined) onThread.set(proc.id, (options = { scope: new ExactScope(proc) }));
  return options;
}

/** `ownerOf`'s options by thread id (a scope matches any processor with that id). */
const onThread = new Map<string, { scope: ExactScope }>();
/**
 * `ownerOf`'s options for a block not placed yet, by the argument it is (one object each, so
 * that the tasks of one operation can be spawned together).
 */
const following: { inPlaceArgs: number[] }[] = [];
/** `ownerOf`'s options for a block on a device: none (the scheduler places the task). */
const SCHEDULER_PLACES: { scope?: ExactScope } = Object.freeze({});

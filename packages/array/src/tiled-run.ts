// Running a tiled factorization (lu, qr) through datadeps on one assembled matrix: its tile
// tasks share the matrix's memory on this process's threads, or run where it is when it sits in
// a worker process.
import { type AbstractScope, currentWorker, type DTask, type Processor, scope } from '@dtask/core';
import { type StridedView, spawnDatadeps, view } from '@dtask/datadeps';
import type { SpawnFn } from './placement.js';

/** The assembled matrix a factorization works on. */
export type Matrix = StridedView<Float64Array>;

/** A `[start, end)` row or column range. */
export type Span = readonly [number, number];

/** What a factorization's region gets: tile views and a spawn for its tile tasks. */
export interface TileRegion {
  /** The view of rows `rows`, columns `cols` of the matrix (local data or a `ChunkView`). */
  at(rows: Span, cols: Span): Matrix;
  /** Spawns one tile task named `name`, with `priority`, running `kernel` on `args`. */
  spawn(name: string, priority: number, kernel: Function, ...args: unknown[]): void;
}

/**
 * Runs `body` in a `spawnDatadeps` region over `matrix` (a task's `Matrix`): when the matrix
 * sits in this process over a `SharedArrayBuffer`, the tile tasks get views of it and run on
 * this process's worker threads (its main thread only when it has none), writing it in place;
 * otherwise the views are `ChunkView`s of the task and the tile tasks run where it is.
 * Resolves once every tile task is done.
 */
export async function runTiled(
  spawn: SpawnFn,
  matrix: DTask<Matrix>,
  body: (region: TileRegion) => void,
): Promise<void> {
  await matrix.wait();
  const here = matrix.processor?.worker === currentWorker();
  const local = here ? await matrix : undefined;
  const threads = here ? threadsBeside(matrix.processor) : undefined;
  const shared = local?.data.buffer instanceof SharedArrayBuffer && threads !== undefined;
  const source = shared ? (local as Matrix) : matrix;
  const extra = shared ? { scope: threads } : {};
  const region: TileRegion = {
    at: (rows, cols) => view(source as Matrix, rows, cols) as unknown as Matrix,
    spawn: (name, priority, kernel, ...args) => {
      spawn({ name, priority, ...extra }, kernel, ...args);
    },
  };
  await spawnDatadeps(() => body(region));
}

/**
 * The worker threads of the process `proc` belongs to (its main thread only when it has no
 * others), as a scope; undefined when they cannot be told.
 */
export function threadsBeside(proc: Processor | undefined): AbstractScope | undefined {
  const all = proc?.getParent()?.getProcessors() ?? [];
  const threads = all.filter((p) => (p as { thread?: number }).thread !== undefined);
  const workers = threads.filter((p) => (p as unknown as { thread: number }).thread !== 1);
  const chosen = workers.length > 0 ? workers : threads;
  if (chosen.length === 0) return undefined;
  return scope(
    ...chosen.map((p) => ({
      worker: p.worker,
      thread: (p as unknown as { thread: number }).thread,
    })),
  );
}

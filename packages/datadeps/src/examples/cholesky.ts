import {
  ArgumentError,
  type Chunk,
  type DTask,
  spawn as defaultSpawn,
  isChunk,
  isDTask,
} from '@dtask/core';
import { In, InOut } from '../annotations.js';
import { spawnDatadeps } from '../spawn-datadeps.js';
import type { StridedView } from '../strided-view.js';
import { view } from '../view.js';
import { asPosDefError } from './pos-def-error.js';
import { gemm, potrf, syrk, trsm } from './tile-kernels.js';

/** A `spawn` to use (e.g. a `Context`'s `ctx.spawn.bind(ctx)`); default: core's `spawn`. */
export type SpawnLike = (...args: any[]) => unknown;

type Matrix = StridedView<Float64Array>;

/** The tile `(i, j)` of `a`: a view of local data, or a `ChunkView` of a chunk or task. */
type Tiles = (i: number, j: number) => Matrix;

function checkTiling(n: number, m: number, tile: number): void {
  if (n !== m || !Number.isInteger(tile) || tile < 1 || n % tile !== 0) {
    throw new ArgumentError(
      `cholesky(A, tile): A must be square with a side divisible by tile; got ${n}×${m}, tile ${tile}`,
    );
  }
}

function tiles(a: Matrix | Chunk<Matrix> | DTask<Matrix>, tile: number): Tiles {
  return (i, j) =>
    view(a as Matrix, [i * tile, (i + 1) * tile], [j * tile, (j + 1) * tile]) as unknown as Matrix;
}

/**
 * Tiled Cholesky factorisation `A = L·Lᵀ` in place (the lower triangle of `a` becomes `L`; the
 * strict upper triangle keeps the input), one task per tile operation (`potrf`, `trsm`, `syrk`,
 * `gemm`) in a `spawnDatadeps` region: the tasks' `In`/`InOut` tiles give the dependencies, so
 * independent tile updates run in parallel on worker threads. Put `a`'s data in a
 * `SharedArrayBuffer` so the threads write it in place (an ordinary buffer works too: each task
 * gets copies of its tiles and its tile comes back). Resolves once `a` holds the result.
 *
 * `a` may also be a `Chunk` or `DTask` of the matrix (its side `n` then given): the tiles are
 * `ChunkView`s, and the tasks that write them run where the matrix's data is.
 */
export async function cholesky(a: Matrix, tile: number, spawn?: SpawnLike): Promise<Matrix>;
export async function cholesky<A extends Chunk<Matrix> | DTask<Matrix>>(
  a: A,
  tile: number,
  spawn: SpawnLike | undefined,
  n: number,
): Promise<A>;
export async function cholesky(
  a: Matrix | Chunk<Matrix> | DTask<Matrix>,
  tile: number,
  spawn: SpawnLike = defaultSpawn,
  n?: number,
): Promise<unknown> {
  const local = !isChunk(a) && !isDTask(a);
  const side = local ? (a as Matrix).shape[0] : n;
  if (side === undefined) {
    throw new ArgumentError('cholesky(chunkOrTask, tile, spawn, n): give the side n of the matrix');
  }
  checkTiling(side, local ? (a as Matrix).shape[1] : side, tile);
  const t = tiles(a, tile);
  const nt = side / tile;
  // Lookahead: a task that writes column j goes before tasks writing columns to its right,
  // and the panel (potrf, trsm) before the updates of its column, so the next panel starts
  // while the trailing updates of this step still run (the critical path comes first).
  const urgency = (column: number, panel: boolean) => ({
    priority: 2 * (nt - column) + (panel ? 1 : 0),
  });
  try {
    await spawnDatadeps(() => {
      for (let k = 0; k < nt; k++) {
        spawn(urgency(k, true), potrf, InOut(t(k, k)), k * tile);
        for (let i = k + 1; i < nt; i++) {
          spawn(urgency(k, true), trsm, In(t(k, k)), InOut(t(i, k)));
        }
        for (let i = k + 1; i < nt; i++) {
          spawn(urgency(i, false), syrk, In(t(i, k)), InOut(t(i, i)));
          for (let j = k + 1; j < i; j++) {
            spawn(urgency(j, false), gemm, In(t(i, k)), In(t(j, k)), InOut(t(i, j)));
          }
        }
      }
    });
  } catch (error) {
    // A failing leading minor rejects with Julia's PosDefException, not the task's wrapper.
    throw asPosDefError(error) ?? error;
  }
  return a;
}

/** The same tile operations in the same order, called directly on this thread (the baseline). */
export function choleskySerial(a: Matrix, tile: number): Matrix {
  checkTiling(a.shape[0], a.shape[1], tile);
  const t = tiles(a, tile);
  const nt = a.shape[0] / tile;
  for (let k = 0; k < nt; k++) {
    try {
      potrf(t(k, k), k * tile);
    } catch (error) {
      throw asPosDefError(error) ?? error;
    }
    for (let i = k + 1; i < nt; i++) trsm(t(k, k), t(i, k));
    for (let i = k + 1; i < nt; i++) {
      syrk(t(i, k), t(i, i));
      for (let j = k + 1; j < i; j++) gemm(t(i, k), t(j, k), t(i, j));
    }
  }
  return a;
}

/**
 * A symmetric positive definite `n × n` matrix (`M·Mᵀ + n·I` for a pseudo-random `M` from
 * `seed`), row-major over a `SharedArrayBuffer`.
 */
export function spdMatrix(n: number, seed = 1): Matrix {
  let s = seed >>> 0 || 1;
  const rnd = () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
  const m = new Float64Array(n * n).map(rnd);
  const data = new Float64Array(new SharedArrayBuffer(8 * n * n));
  for (let i = 0; i < n; i++) {
    for (let j = 0; j <= i; j++) {
      let v = 0;
      for (let p = 0; p < n; p++) v += m[i * n + p] * m[j * n + p];
      if (i === j) v += n;
      data[i * n + j] = v;
      data[j * n + i] = v;
    }
  }
  return { data, shape: [n, n], strides: [n, 1], offset: 0 };
}

/** Largest `|(L·Lᵀ − A)ᵢⱼ|`, with `L` the lower triangle of `factored` and `A` the input `original`. */
export function choleskyError(factored: Matrix, original: Matrix): number {
  const n = factored.shape[0];
  const at = (x: Matrix, i: number, j: number) =>
    x.data[x.offset + i * x.strides[0] + j * x.strides[1]];
  let worst = 0;
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      let v = 0;
      for (let p = 0; p <= Math.min(i, j); p++) v += at(factored, i, p) * at(factored, j, p);
      worst = Math.max(worst, Math.abs(v - at(original, i, j)));
    }
  }
  return worst;
}

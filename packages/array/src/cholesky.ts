import { ArgumentError, currentWorker, type DTask } from '@dtask/core';
import type { StridedView } from '@dtask/datadeps';
import { cholesky as tiledCholesky } from '@dtask/datadeps/examples';
import { Blocks } from './blocks.js';
import { lowerPart, paddedMatrix } from './cholesky-kernels.js';
import { DArray } from './darray.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';

/** Options of `cholesky`. */
export interface CholeskyOptions {
  /** The side of the tiles datadeps factors; default: the smaller block size of the array. */
  tile?: number;
}

type Matrix = StridedView<Float64Array>;

/**
 * The Cholesky factor `L` (`A = L·Lᵀ`, lower triangular, Float64) of a symmetric positive
 * definite 2-D `DArray`, as a `DArray` with `a`'s blocks. The work is datadeps' tiled
 * `cholesky` (`@dtask/datadeps/examples`: one task per `potrf`/`trsm`/`syrk`/`gemm` tile
 * operation, ordered by `In`/`InOut` of the tiles):
 *
 * 1. a task assembles the matrix from `a`'s chunks (re-blocking to one block) where the
 *    scheduler puts it, into a `SharedArrayBuffer`, padded with the identity to a multiple of
 *    the tile (so any side works);
 * 2. datadeps factors it in place: when it sits in this process (worker threads), the tile
 *    tasks share its memory and run on all the threads; when it sits in another worker
 *    process, it is passed as its `DTask` and the tile tasks run where it is;
 * 3. tasks cut `L` back into `a`'s blocks.
 *
 * No full-size copy of the matrix is made on the caller.
 */
export function cholesky(a: DArray, options: CholeskyOptions = {}): Promise<DArray> {
  if (!(a instanceof DArray) || a.shape.length !== 2 || a.shape[0] !== a.shape[1]) {
    throw new ArgumentError(
      `cholesky(a): a must be a square 2-D DArray; got ${a instanceof DArray ? describe(a) : String(a)}`,
    );
  }
  const n = a.shape[0];
  const tile = options.tile ?? Math.min(...a.blocks.sizes, Math.max(n, 1));
  if (!Number.isInteger(tile) || tile < 1) {
    throw new ArgumentError(`cholesky(a, { tile }): tile must be a positive integer; got ${tile}`);
  }
  if (n === 0) throw new ArgumentError(`cholesky(a): a is empty: ${describe(a)}`);
  return factor(a, tile);
}

async function factor(a: DArray, tile: number): Promise<DArray> {
  const n = a.shape[0];
  const spawn = spawnerOf(a.context);
  const side = Math.ceil(n / tile) * tile;
  const whole = a.reblock(new Blocks(n, n)).chunks[0];
  const matrix = spawn(paddedMatrix, whole, side) as unknown as DTask<Matrix>;
  await matrix.wait();
  const here = matrix.processor?.worker === currentWorker();
  // In this process the matrix's SharedArrayBuffer arrives shared, not copied.
  const local = here ? await matrix : undefined;
  if (local !== undefined && local.data.buffer instanceof SharedArrayBuffer) {
    await tiledCholesky(local, tile, spawn);
  } else {
    await tiledCholesky(matrix, tile, spawn, side);
  }
  const lower = spawn(lowerPart, matrix, n) as DTask<Block>;
  return new DArray([n, n], new Blocks(n, n), 'float64', [lower], a.context).reblock(a.blocks);
}

import { type AbstractScope, ArgumentError, currentWorker, type DTask, isChunk } from '@dtask/core';
import { In, InOut, type StridedView } from '@dtask/datadeps';
import {
  asPosDefError,
  gemm,
  PosDefError,
  potrf,
  syrk,
  cholesky as tiledCholesky,
  trsm,
} from '@dtask/datadeps/examples';
import { Blocks } from './blocks.js';
import {
  gemmNHComplex,
  lowerPartComplex,
  potrfComplex,
  trsmComplex,
} from './cholesky-complex-tiles.js';
import { lowerPart, paddedMatrix } from './cholesky-kernels.js';
import * as tilesSimd from './cholesky-tiles.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import type { Block } from './kernels.js';
import { paddedComplexWithRows } from './lu-complex-kernels.js';
import { describe } from './parts.js';
import { type SpawnFn, spawnerOf } from './placement.js';
import { runTiled, threadsBeside } from './tiled-run.js';

/** Options of `cholesky`. */
export interface CholeskyOptions {
  /** The side of the tiles datadeps factors; default: the smaller block size of the array. */
  tile?: number;
  /**
   * Where the matrix is assembled, and so factored (e.g. `scope({ worker: 2 })`); default:
   * where the scheduler puts the assembling task.
   */
  scope?: AbstractScope;
}

/** Julia's `PosDefException` (datadeps' class): what a matrix that is not positive definite throws. */
export { PosDefError };

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
 * No full-size copy of the matrix is made on the caller. A matrix that is not positive definite
 * rejects with `PosDefError` (code `DTASK_POSDEF`; `info`: the order of the first leading
 * minor that is not positive), as Julia's `cholesky` throws `PosDefException`.
 *
 * A Hermitian positive definite complex128 or complex64 `a` gives the complex128 `L` with
 * `A = L·Lᴴ` (Julia's `cholesky(A).L` of a complex matrix), factored the same way by complex tile
 * kernels (`zpotrf`, `ztrsm`, `zherk`, `zgemm` in plain JavaScript, no SIMD); only the lower
 * triangle of `a` is read.
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
  return isComplex(a.dtype)
    ? factorComplex(a, tile, options.scope)
    : factor(a, tile, options.scope);
}

/** The tiled complex factorization: the same tile operations, complex kernels, in `runTiled`. */
async function factorComplex(a: DArray, tile: number, where?: AbstractScope): Promise<DArray> {
  const n = a.shape[0];
  const spawn = spawnerOf(a.context);
  const side = Math.ceil(n / tile) * tile;
  const whole = a.reblock(new Blocks(n, n)).chunks[0];
  const options = where ? [{ scope: where }] : [];
  const matrix = spawn(
    ...options,
    paddedComplexWithRows,
    whole,
    side,
    side,
    0,
  ) as unknown as DTask<Matrix>;
  const nt = side / tile;
  const urgency = (column: number, panel: boolean) => 2 * (nt - column) + (panel ? 1 : 0);
  const tiles = runTiled(spawn, matrix, ({ at, spawn: tileTask }) => {
    // complex row i is real rows 2i and 2i + 1
    const t = (i: number, j: number) =>
      at([2 * i * tile, 2 * (i + 1) * tile], [j * tile, (j + 1) * tile]);
    for (let k = 0; k < nt; k++) {
      tileTask('potrf', urgency(k, true), potrfComplex, InOut(t(k, k)), k * tile);
      for (let i = k + 1; i < nt; i++)
        tileTask('trsm', urgency(k, true), trsmComplex, In(t(k, k)), InOut(t(i, k)));
      for (let i = k + 1; i < nt; i++) {
        tileTask(
          'herk',
          urgency(i, false),
          gemmNHComplex,
          In(t(i, k)),
          In(t(i, k)),
          InOut(t(i, i)),
        );
        for (let j = k + 1; j < i; j++) {
          tileTask(
            'gemm',
            urgency(j, false),
            gemmNHComplex,
            In(t(i, k)),
            In(t(j, k)),
            InOut(t(i, j)),
          );
        }
      }
    }
  });
  try {
    await tiles;
  } catch (error) {
    // A failing leading minor rejects with Julia's PosDefException, not the task's wrapper.
    throw asPosDefError(error) ?? error;
  }
  const lower = spawn(lowerPartComplex, matrix, n) as DTask<Block>;
  return new DArray([n, n], new Blocks(n, n), 'complex128', [lower], a.context).reblock(a.blocks);
}

async function factor(a: DArray, tile: number, where?: AbstractScope): Promise<DArray> {
  const n = a.shape[0];
  const spawn = spawnerOf(a.context);
  const side = Math.ceil(n / tile) * tile;
  const whole = a.reblock(new Blocks(n, n)).chunks[0];
  const matrix = spawn(
    ...(where ? [{ scope: where }] : []),
    paddedMatrix,
    whole,
    side,
  ) as unknown as DTask<Matrix>;
  await matrix.wait();
  const here = matrix.processor?.worker === currentWorker();
  // In this process the matrix's SharedArrayBuffer arrives shared, not copied.
  const local = here ? await matrix : undefined;
  const threads = here ? threadsBeside(matrix.processor) : undefined;
  if (local?.data.buffer instanceof SharedArrayBuffer && threads !== undefined) {
    // Shared memory is shared only within this process: the tile tasks run on its threads.
    await tiledCholesky(local, tile, withOptions(spawn, { scope: threads }));
  } else {
    await tiledCholesky(matrix, tile, withOptions(spawn, {}), side);
  }
  const lower = spawn(lowerPart, matrix, n) as DTask<Block>;
  return new DArray([n, n], new Blocks(n, n), 'float64', [lower], a.context).reblock(a.blocks);
}

/** Datadeps' plain JavaScript tile kernels → the same operations in WebAssembly SIMD. */
const SIMD_TILES = new Map<Function, Function>([
  [potrf, tilesSimd.potrf],
  [trsm, tilesSimd.trsm],
  [syrk, tilesSimd.syrk],
  [gemm, tilesSimd.gemm],
]);

/**
 * `spawn` adding `extra` to every task's options, naming each task after its function
 * (`potrf`, `trsm`, `syrk`, `gemm`: the logs say which tile operation ran where), and running
 * each tile operation's SIMD kernel (`cholesky-tiles.ts`: plain JavaScript where the worker
 * has no WebAssembly SIMD). Options come first, as datadeps' examples pass them.
 */
function withOptions(spawn: SpawnFn, extra: { scope?: AbstractScope }): SpawnFn {
  return (...args: any[]) => {
    const first = args[0];
    const [options, rest] =
      typeof first === 'function' || isChunk(first) ? [{}, args] : [first, args.slice(1)];
    const name = typeof rest[0] === 'function' ? rest[0].name : undefined;
    const kernel = SIMD_TILES.get(rest[0]) ?? rest[0];
    return spawn({ ...(name ? { name } : {}), ...options, ...extra }, kernel, ...rest.slice(1));
  };
}

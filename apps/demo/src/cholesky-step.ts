// The demo's linear-algebra step (@dtask/datadeps): a tiled Cholesky factorisation of a
// generated symmetric positive definite matrix in a SharedArrayBuffer, one task per tile
// operation, ordered by the tiles' In/InOut annotations; the residual |L·Lᵀ − A| checks it.
import type { Context } from '@dtask/core';
import { cholesky, choleskyError, spdMatrix } from '@dtask/datadeps/examples';

/** What the Cholesky step measured. */
export interface CholeskyResult {
  /** Side of the matrix. */
  n: number;
  /** Side of one tile. */
  tile: number;
  /** Tile tasks spawned (potrf + trsm + syrk + gemm). */
  tasks: number;
  /** Largest |(L·Lᵀ − A)ᵢⱼ|. */
  residual: number;
}

/** Factors a (tiles·tileSide)² matrix on `context`'s processors and measures the residual. */
export async function runCholeskyStep(
  context: Context,
  tiles: number,
  tileSide: number,
): Promise<CholeskyResult> {
  const n = tiles * tileSide;
  const a = spdMatrix(n, 7);
  const original = { ...a, data: a.data.slice() };
  await cholesky(a, tileSide, context.spawn.bind(context) as (...args: unknown[]) => unknown);
  const t = tiles;
  const tasks = t + 2 * ((t * (t - 1)) / 2) + (t * (t - 1) * (t - 2)) / 6;
  return { n, tile: tileSide, tasks, residual: choleskyError(a, original) };
}

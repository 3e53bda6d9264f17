import { ArgumentError } from '@dtask/core';
import { Blocks } from './blocks.js';
import { requireReal } from './dtype-error.js';
import { matvecBlocks } from './matvec-kernel.js';
import { type ArrayData, chunkAt, dataOf, describe, type Parts } from './parts.js';
import type { SpawnFn } from './placement.js';
import { reblockParts } from './slicing.js';

/**
 * Julia's `A * x` of a 2-D array and a vector (Dagger's GEMV): one task per block row of `a`,
 * taking that block row and the vector's blocks, making the result's block (a vector of `a`'s
 * rows, blocked as `a`'s rows). A vector blocked unlike `a`'s columns is re-blocked to them
 * first; the dtypes must agree.
 */
export function matvecParts(a: ArrayData, spawn: SpawnFn, x: ArrayData): Parts {
  requireReal('matmul', a, 'da.matmul(x) of a vector');
  const [m, k] = a.shape;
  if (x.shape[0] !== k || a.dtype !== x.dtype) {
    throw new ArgumentError(
      `da.matmul(x): need [m, k]·[k] of one dtype; got ${describe(a)} · ${describe(x)}; give a vector of a's column count and dtype`,
    );
  }
  if (a.blocks.sizes[1] !== x.blocks.sizes[0]) {
    // Dagger multiplies a vector blocked unlike the matrix's columns too: re-block it.
    const parts = reblockParts(x, new Blocks(a.blocks.sizes[1]));
    return matvecParts(a, spawn, parts === undefined ? x : dataOf(parts, x.context));
  }
  const inner = a.grid[1];
  const chunks = Array.from({ length: a.grid[0] }, (_, i) => {
    const row = Array.from({ length: inner }, (_, p) => chunkAt(a, i, p));
    const pieces = Array.from({ length: inner }, (_, p) => chunkAt(x, p));
    return spawn(matvecBlocks, a.dtype, inner, ...row, ...pieces);
  });
  return { shape: [m], blocks: new Blocks(a.blocks.sizes[0]), dtype: a.dtype, chunks };
}

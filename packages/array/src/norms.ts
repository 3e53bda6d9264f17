import { ArgumentError, type DTask } from '@dtask/core';
import { blockRanges, gridIndices } from './blocks.js';
import { DArray } from './darray.js';
import { requireReal } from './dtype-error.js';
import { blockAbsSums, blockNormPart } from './norm-kernels.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { svdvals } from './svd.js';

/**
 * Dagger's `norm(A, p)` (Julia's `LinearAlgebra.norm`): the array taken as one vector of all
 * its elements, any number of dimensions. `p = 2` (default) the Euclidean norm, `1` the sum of
 * `|x|`, `Infinity` the largest `|x|`, `-Infinity` the smallest, `0` the count of non-zeros,
 * any other positive `p` `(Σ|x|^p)^(1/p)`. One task per block reduces it where it lives (as
 * Dagger's `norm2`: a `mapreduce` per chunk), and the partial results are combined here, in
 * block order.
 */
export async function norm(a: DArray, p = 2): Promise<number> {
  const what = 'norm(a, p)';
  requireReal('norm', a, what);
  if (!(a instanceof DArray))
    throw new ArgumentError(`${what}: a must be a DArray; got ${String(a)}`);
  if (typeof p !== 'number' || Number.isNaN(p) || (p < 0 && p !== Number.NEGATIVE_INFINITY)) {
    throw new ArgumentError(
      `${what}: p must be a number ≥ 0, Infinity or -Infinity (Julia's norm); got ${String(p)}`,
    );
  }
  const spawn = spawnerOf(a.context);
  const parts = (await Promise.all(
    a.chunks.map(
      (c) => spawn({ name: 'normPart' }, blockNormPart, p, c) as unknown as DTask<number>,
    ),
  )) as number[];
  if (parts.length === 0) return 0;
  if (p === Number.POSITIVE_INFINITY) return parts.reduce((x, y) => Math.max(y, x), 0);
  if (p === Number.NEGATIVE_INFINITY) return parts.reduce((x, y) => Math.min(y, x), Infinity);
  const sum = parts.reduce((x, y) => x + y, 0);
  if (p === 0 || p === 1) return sum;
  if (p === 2) return Math.sqrt(sum);
  return sum ** (1 / p);
}

/**
 * Dagger's `opnorm(A, p)` (Julia's `LinearAlgebra.opnorm`) of a 2-D array: `p = 1` the largest
 * column sum of `|x|`, `p = Infinity` the largest row sum. One task per block sums its columns
 * (or rows) where it lives; the sums are added here. `p = 2` (Julia's default) the largest
 * singular value, through `svdvals` (the matrix gathered to one processor).
 */
export async function opnorm(a: DArray, p = 2): Promise<number> {
  const what = 'opnorm(a, p)';
  requireReal('opnorm', a, what);
  if (!(a instanceof DArray))
    throw new ArgumentError(`${what}: a must be a DArray; got ${String(a)}`);
  if (a.shape.length !== 2) {
    throw new ArgumentError(`${what}: a must be 2-D (a matrix); got ${describe(a)}`);
  }
  if (p !== 1 && p !== 2 && p !== Number.POSITIVE_INFINITY) {
    throw new ArgumentError(
      `${what}: p must be 1 (largest column sum), 2 (largest singular value) or Infinity (largest row sum); got ${String(p)}`,
    );
  }
  if (p === 2) return a.shape.includes(0) ? 0 : (await svdvals(a))[0];
  const dim = p === 1 ? 0 : 1;
  const spawn = spawnerOf(a.context);
  const sums = (await Promise.all(
    a.chunks.map(
      (c) => spawn({ name: 'opnormPart' }, blockAbsSums, dim, c) as unknown as DTask<Float64Array>,
    ),
  )) as Float64Array[];
  const total = new Float64Array(a.shape[dim === 0 ? 1 : 0]);
  gridIndices(a.grid).forEach((g, k) => {
    const [from] = blockRanges(a.shape, a.blocks, g)[dim === 0 ? 1 : 0];
    sums[k].forEach((x, i) => {
      total[from + i] += x;
    });
  });
  return total.reduce((x, y) => Math.max(y, x), 0);
}

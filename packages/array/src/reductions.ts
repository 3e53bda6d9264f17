import { ArgumentError } from '@dtask/core';
import { Blocks, columnMajorStrides, gridIndices, gridOf, lengthOf } from './blocks.js';
import type { DArray } from './darray.js';
import { functionSource } from './elementwise.js';
import { describe, type Parts } from './parts.js';
import type { SpawnFn } from './placement.js';
import { combineBlocks, reduceBlock } from './reduce-kernels.js';

/** Options of the reductions: which dimensions to reduce (default: all). */
export interface ReduceOptions {
  /**
   * The dimensions to reduce, 0-based: a list, or one number (Julia's `dims=1`, NumPy's
   * `axis=0`); the result has size 1 along them.
   */
  dims?: number | number[];
}

/**
 * A reduction along `dims` (all by default): one task per block reduces it where it is, then
 * one task per result block combines the partial results of the blocks it covers. `op` is
 * `'sum'`, `'min'`, `'max'` or `'fn'` (with `f`, a self-contained `(acc, x) => number` that is
 * associative); `mean` scales the sums by 1/count. The result is a Float64 array with size 1
 * along `dims`.
 */
export function reduceParts(
  a: DArray,
  spawn: SpawnFn,
  op: 'sum' | 'min' | 'max' | 'fn',
  options: ReduceOptions | undefined,
  what: string,
  extra: { mean?: boolean; f?: unknown } = {},
): Parts {
  const nd = a.shape.length;
  const source =
    op === 'fn' ? functionSource(extra.f, `da.${what}(f)`, '(acc, x) => number') : undefined;
  const given = options?.dims;
  const dims = typeof given === 'number' ? [given] : (given ?? [...Array(nd).keys()]);
  if (!Array.isArray(dims) || dims.some((d) => !Number.isInteger(d) || d < 0 || d >= nd)) {
    throw new ArgumentError(
      `da.${what}({ dims }): dims must be a dimension or a list of dimensions 0…${nd - 1} of ${describe(a)}; got ${JSON.stringify(given)}`,
    );
  }
  if (lengthOf(a.shape) === 0) {
    throw new ArgumentError(`da.${what}(): the array ${describe(a)} is empty`);
  }
  const partial = a.chunks.map((c) => spawn(reduceBlock, c, dims, op, source));
  const shape = a.shape.map((s, d) => (dims.includes(d) ? 1 : s));
  const blocks = new Blocks(...a.blocks.sizes.map((s, d) => (dims.includes(d) ? 1 : s)));
  const gridStrides = columnMajorStrides(a.grid);
  const scale = extra.mean === true ? lengthOf(shape) / lengthOf(a.shape) : 1;
  const reducedGrid = a.grid.map((g, d) => (dims.includes(d) ? g : 1));
  const chunks = gridIndices(gridOf(shape, blocks)).map((outIndex) => {
    const parts = gridIndices(reducedGrid).map((r) => {
      let flat = 0;
      for (let d = 0; d < nd; d++) flat += (dims.includes(d) ? r[d] : outIndex[d]) * gridStrides[d];
      return partial[flat];
    });
    return spawn(combineBlocks, op, source, scale, ...parts);
  });
  return { shape, blocks, dtype: 'float64', chunks };
}

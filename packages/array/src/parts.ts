import { ArgumentError, type DTask } from '@dtask/core';
import { Blocks, columnMajorStrides } from './blocks.js';
import { DArray } from './darray.js';
import type { DType } from './dtype.js';
import type { Block } from './kernels.js';

/** What an operation makes: the pieces of a new `DArray` in the same context. */
export interface Parts {
  /** The new array's shape. */
  shape: readonly number[];
  /** Its blocking. */
  blocks: Blocks;
  /** Its element type. */
  dtype: DType;
  /** Its chunk tasks, column-major over the grid. */
  chunks: DTask<Block>[];
}

/** `[13, 11] float64 in blocks (4, 4)`: how error messages name an array. */
export function describe(a: {
  shape: readonly number[];
  dtype: string;
  blocks: { sizes: readonly number[] };
}): string {
  return `[${a.shape.join(', ')}] ${a.dtype} in blocks (${a.blocks.sizes.join(', ')})`;
}

/** Whether two lists of numbers are equal. */
export function sameList(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** The flat position in `a.chunks` of grid index `index`, or `ArgumentError` naming the grid. */
export function chunkIndex(a: DArray, index: readonly number[]): number {
  if (
    index.length !== a.grid.length ||
    index.some((b, d) => !Number.isInteger(b) || b < 0 || b >= a.grid[d])
  ) {
    throw new ArgumentError(
      `da.chunk(...index): give ${a.grid.length} block indices within grid [${a.grid.join(', ')}] of ${describe(a)}; got (${index.join(', ')})`,
    );
  }
  const strides = columnMajorStrides(a.grid);
  let flat = 0;
  for (let d = 0; d < index.length; d++) flat += index[d] * strides[d];
  return flat;
}

/** `a` seen with `rank` dimensions, the added trailing ones of size 1 (same chunks). */
export function withRank(a: DArray, rank: number): DArray {
  const extra = rank - a.shape.length;
  if (extra <= 0) return a;
  const ones = Array<number>(extra).fill(1);
  return new DArray(
    [...a.shape, ...ones],
    new Blocks(...a.blocks.sizes, ...ones),
    a.dtype,
    a.chunks,
    a.context,
  );
}

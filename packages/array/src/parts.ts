import { ArgumentError, type Context, type DTask } from '@dtask/core';
import { Blocks, columnMajorStrides, gridOf } from './blocks.js';
import type { DType } from './dtype.js';
import type { Block } from './kernels.js';

/**
 * What an operation takes: the plain data of a distributed array (a `DArray` is one; the
 * class wraps what the operations return).
 */
export interface ArrayData {
  /** The shape. */
  readonly shape: readonly number[];
  /** How it is cut into blocks. */
  readonly blocks: Blocks;
  /** The element type. */
  readonly dtype: DType;
  /** Blocks along each dimension. */
  readonly grid: readonly number[];
  /** The context whose processors run its tasks (undefined: the default context). */
  readonly context: Context | undefined;
  /** The chunk tasks, column-major over the grid. */
  readonly chunks: readonly DTask<Block>[];
}

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

/** `parts` in `context` as the data an operation takes. */
export function dataOf(parts: Parts, context: Context | undefined): ArrayData {
  const { shape, blocks, dtype, chunks } = parts;
  return { shape, blocks, dtype, grid: gridOf(shape, blocks), context, chunks };
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
export function chunkIndex(a: ArrayData, index: readonly number[]): number {
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

/** The chunk task of `a` at grid index `(i, j, …)` (0-based; as `da.chunk(i, j, …)`). */
export function chunkAt(a: ArrayData, ...index: number[]): DTask<Block> {
  return a.chunks[chunkIndex(a, index)];
}

/** `a` seen with `rank` dimensions, the added trailing ones of size 1 (same chunks). */
export function withRank(a: ArrayData, rank: number): ArrayData {
  const extra = rank - a.shape.length;
  if (extra <= 0) return a;
  const ones = Array<number>(extra).fill(1);
  const shape = [...a.shape, ...ones];
  const blocks = new Blocks(...a.blocks.sizes, ...ones);
  return {
    shape,
    blocks,
    dtype: a.dtype,
    grid: gridOf(shape, blocks),
    context: a.context,
    chunks: a.chunks,
  };
}

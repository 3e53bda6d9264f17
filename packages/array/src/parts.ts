import type { DTask } from '@dtask/core';
import type { Blocks } from './blocks.js';
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

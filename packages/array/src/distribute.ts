import type { AutoBlocks } from './auto-blocks.js';
import type { Blocks } from './blocks.js';
import { DArray, type DArrayOptions } from './darray.js';
import { distributeParts } from './distribute-parts.js';
import type { DType } from './dtype.js';

/** Options of `distribute`. */
export interface DistributeOptions {
  /** Element type; default: from the array (Float32Array, Int32Array), else `'float64'`. */
  dtype?: DType;
  /** The context whose processors hold the chunks; default: the default context. */
  context?: DArrayOptions['context'];
  /** Explicit placement of each block's task by grid index (see `DArrayOptions.assign`). */
  assign?: DArrayOptions['assign'];
}

/**
 * `distribute(array, shape, new Blocks(...))`: cut a whole array held by the caller (`array`,
 * column-major, `shape`'s element count long) into blocks and hand each to a task, so the
 * chunks are spread evenly over the worker threads in contiguous runs (or placed by `assign`): a `DArray`.
 */
export function distribute(
  array: ArrayLike<number>,
  shape: readonly number[],
  blocks: Blocks | AutoBlocks,
  options: DistributeOptions = {},
): DArray {
  const p = distributeParts(array, shape, blocks, options, 'distribute(array, shape, blocks)');
  return new DArray(shape, p.blocks, p.dtype, p.chunks, options.context);
}

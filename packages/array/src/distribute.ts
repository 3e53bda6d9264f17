import { ArgumentError, type Context } from '@dtask/core';
import {
  type Blocks,
  blockRanges,
  checkBlocks,
  checkShape,
  columnMajorStrides,
  gridIndices,
  gridOf,
  lengthOf,
} from './blocks.js';
import {
  checkDtype,
  DArray,
  type DArrayOptions,
  type DType,
  placement,
  spawnerOf,
} from './darray.js';
import { blockFrom } from './kernels.js';

/** Options of `distribute`. */
export interface DistributeOptions {
  /** Element type; default: from the array (Float32Array, Int32Array), else `'float64'`. */
  dtype?: DType;
  /** The context whose processors hold the chunks; default: the default context. */
  context?: Context;
  /** Explicit placement of each block's task by grid index (see `DArrayOptions.assign`). */
  assign?: DArrayOptions['assign'];
}

/**
 * Cut a whole array held by the caller (`array`, column-major, `shape`'s element count long)
 * into blocks by `blocks` and hand each to a task, so the chunks live where the scheduler puts
 * them: a `DArray`.
 */
export function distribute(
  array: ArrayLike<number>,
  shape: readonly number[],
  blocks: Blocks,
  options: DistributeOptions = {},
): DArray {
  checkShape(shape, 'distribute(array, shape, blocks)');
  checkBlocks(shape, blocks, 'distribute(array, shape, blocks)');
  if (array === null || typeof array !== 'object' || typeof array.length !== 'number') {
    throw new ArgumentError(
      'distribute(array, shape, blocks): array must be an array or typed array',
    );
  }
  if (array.length !== lengthOf(shape)) {
    throw new ArgumentError(
      `distribute(array, shape, blocks): array has ${array.length} elements but shape [${shape.join(', ')}] needs ${lengthOf(shape)}`,
    );
  }
  const dtype = checkDtype(
    options.dtype ??
      (array instanceof Float32Array
        ? 'float32'
        : array instanceof Int32Array
          ? 'int32'
          : 'float64'),
    'distribute(array, shape, blocks)',
  );
  const spawn = spawnerOf(options.context);
  const strides = columnMajorStrides(shape);
  const chunks = gridIndices(gridOf(shape, blocks)).map((idx) => {
    const ranges = blockRanges(shape, blocks, idx);
    const bshape = ranges.map(([a, b]) => b - a);
    const values = new Float64Array(lengthOf(bshape));
    const at = new Array(bshape.length).fill(0);
    for (let i = 0; i < values.length; i++) {
      let o = 0;
      for (let d = 0; d < at.length; d++) o += (ranges[d][0] + at[d]) * strides[d];
      values[i] = array[o];
      for (let d = 0; d < at.length; d++) {
        at[d]++;
        if (at[d] < bshape[d]) break;
        at[d] = 0;
      }
    }
    return spawn(
      ...placement(options.assign, idx, 'distribute(array, shape, blocks)'),
      blockFrom,
      dtype,
      bshape,
      values,
    );
  });
  return new DArray(shape, blocks, dtype, chunks, options.context);
}

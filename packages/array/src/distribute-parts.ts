import { ArgumentError, type DTask } from '@dtask/core';
import { gridAssignment } from './assign-grid.js';
import { type AutoBlocks, resolveBlocks } from './auto-blocks.js';
import { type Blocks, checkBlocks, checkShape, lengthOf } from './blocks.js';
import type { DArrayOptions } from './darray-options.js';
import { checkDtype, type DType, dtypeOf, widthOf } from './dtype.js';
import type { Block } from './kernels.js';
import { blockProcessors, spawnerOf } from './placement.js';
import { splitArray } from './split-array.js';

/**
 * `distribute`'s and `DArray.from`'s work: checks, then one task per block taking a copy of
 * that block's elements.
 */
export function distributeParts(
  array: ArrayLike<number>,
  shape: readonly number[],
  blocksOrAuto: Blocks | AutoBlocks,
  options: DArrayOptions,
  what: string,
): { blocks: Blocks; dtype: DType; chunks: DTask<Block>[] } {
  const blocks = resolveBlocks(shape, blocksOrAuto, options.context);
  checkShape(shape, what);
  checkBlocks(shape, blocks, what);
  if (array === null || typeof array !== 'object' || typeof array.length !== 'number') {
    throw new ArgumentError(`${what}: array must be an array or typed array`);
  }
  const dtype = checkDtype(options.dtype ?? dtypeOf(array), what);
  const w = widthOf(dtype);
  if (array.length !== w * lengthOf(shape)) {
    throw new ArgumentError(
      `${what}: array has ${array.length} elements but shape [${shape.join(', ')}] needs ${w * lengthOf(shape)}${w === 2 ? ` (${dtype}: re, im pairs)` : ''}`,
    );
  }
  const assign = gridAssignment(options.assign, options.context, shape.length, what);
  const chunks = splitArray(
    array,
    shape,
    blocks,
    dtype,
    spawnerOf(options.context),
    assign,
    what,
    typeof assign === 'function' ? [] : blockProcessors(options.context),
  );
  return { blocks, dtype, chunks };
}

/**
 * `DArray.from`'s work: `source` is `{ data, shape }` (column-major) or a 1-D array or typed
 * array, cut by `blocks` as `distributeParts` does.
 */
export function sourceParts(
  source: { data: ArrayLike<number>; shape: readonly number[] } | ArrayLike<number>,
  blocks: Blocks | AutoBlocks,
  options: DArrayOptions,
  what: string,
): { shape: readonly number[]; blocks: Blocks; dtype: DType; chunks: DTask<Block>[] } {
  if (source === null || typeof source !== 'object') {
    throw new ArgumentError(`${what}: source must be { data, shape } or an array`);
  }
  const whole =
    'shape' in source && 'data' in source
      ? source
      : {
          data: source as ArrayLike<number>,
          // A complex dtype's 1-D source holds (re, im) pairs.
          shape: [(source as ArrayLike<number>).length / widthOf(options.dtype ?? 'float64')],
        };
  return { shape: whole.shape, ...distributeParts(whole.data, whole.shape, blocks, options, what) };
}

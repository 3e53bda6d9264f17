import { ArgumentError, type Context } from '@dtask/core';
import { type AutoBlocks, resolveBlocks } from './auto-blocks.js';
import { type Blocks, checkBlocks, checkShape, gridOf, lengthOf } from './blocks.js';
import { checkDtype, type DType } from './dtype.js';

/**
 * `new DArray`'s checks of `shape`, its blocks (`AutoBlocks` resolved for `context`'s
 * processors) and `dtype`, each an `ArgumentError`; the blocks and the grid they make.
 */
export function checkLayout(
  shape: readonly number[],
  blocksOrAuto: Blocks | AutoBlocks,
  dtype: DType,
  context: Context | undefined,
): { blocks: Blocks; grid: number[] } {
  const blocks = resolveBlocks(shape, blocksOrAuto, context);
  checkShape(shape, 'new DArray');
  checkBlocks(shape, blocks, 'new DArray');
  checkDtype(dtype, 'new DArray');
  return { blocks, grid: gridOf(shape, blocks) };
}

/** `new DArray`'s check of its chunk tasks: one per block of `grid`, else `ArgumentError`. */
export function checkChunks(chunks: unknown, grid: readonly number[], shape: readonly number[]) {
  const given = chunks as { length?: number } | undefined;
  if (!Array.isArray(chunks) || chunks.length !== lengthOf(grid)) {
    throw new ArgumentError(
      `new DArray: expected ${lengthOf(grid)} chunks for grid [${grid.join(', ')}] of shape [${shape.join(', ')}]; got ${given?.length}`,
    );
  }
}

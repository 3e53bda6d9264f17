import type { DTask, Processor } from '@dtask/core';
import {
  type Blocks,
  blockRanges,
  columnMajorStrides,
  gridIndices,
  gridOf,
  lengthOf,
} from './blocks.js';
import { type Block, blockFrom } from './kernels.js';
import { type Assignment, placement, type SpawnFn } from './placement.js';

/**
 * Cut `array` (column-major, `shape`) into the blocks of `blocks` and hand each block's
 * elements to a task that makes it (as `dtype`) where it runs: the chunks of a `DArray`,
 * column-major over the grid. Only one block's copy is made here at a time.
 */
export function splitArray(
  array: ArrayLike<number>,
  shape: readonly number[],
  blocks: Blocks,
  dtype: string,
  spawn: SpawnFn,
  assign: Assignment | undefined,
  what: string,
  procs: readonly Processor[] = [],
): DTask<Block>[] {
  const strides = columnMajorStrides(shape);
  const grid = gridIndices(gridOf(shape, blocks));
  return grid.map((idx, k) => {
    const ranges = blockRanges(shape, blocks, idx);
    const bshape = ranges.map(([a, b]) => b - a);
    const w = dtype.startsWith('complex') ? 2 : 1; // numbers per element
    const values = new Float64Array(w * lengthOf(bshape));
    const at = new Array(bshape.length).fill(0);
    for (let i = 0; i < values.length / w; i++) {
      let o = 0;
      for (let d = 0; d < at.length; d++) o += (ranges[d][0] + at[d]) * strides[d];
      if (w === 1) values[i] = array[o];
      else {
        values[2 * i] = array[2 * o];
        values[2 * i + 1] = array[2 * o + 1];
      }
      for (let d = 0; d < at.length; d++) {
        at[d]++;
        if (at[d] < bshape[d]) break;
        at[d] = 0;
      }
    }
    return spawn(
      ...placement(assign, idx, what, {
        procs,
        k,
        count: grid.length,
        grid: gridOf(shape, blocks),
      }),
      blockFrom,
      dtype,
      bshape,
      values,
    );
  });
}

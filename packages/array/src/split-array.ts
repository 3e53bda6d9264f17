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
  // a typed array's runs are copied by `set` (native, whatever its type)
  const typed =
    typeof (array as { subarray?: unknown }).subarray === 'function'
      ? (array as Float64Array)
      : undefined;
  const count = grid.length;
  return grid.map((idx, k) =>
    splitBlock(
      array,
      typed,
      shape,
      strides,
      blocks,
      dtype,
      spawn,
      assign,
      what,
      procs,
      idx,
      k,
      count,
    ),
  );
}

/**
 * `splitArray`'s block `k` (at `idx` on the grid): its elements copied out of `array` and handed
 * to the task that makes it. A function of the module, not a closure made per call: V8 keeps a
 * function's optimised code only while a closure of it lives, so a closure made per call would
 * be compiled again after the next collection (12–20 ms of a compiler thread per 64-block call).
 */
function splitBlock(
  array: ArrayLike<number>,
  typed: Float64Array | undefined,
  shape: readonly number[],
  strides: readonly number[],
  blocks: Blocks,
  dtype: string,
  spawn: SpawnFn,
  assign: Assignment | undefined,
  what: string,
  procs: readonly Processor[],
  idx: number[],
  k: number,
  count: number,
): DTask<Block> {
  const ranges = blockRanges(shape, blocks, idx);
  const bshape = ranges.map(([a, b]) => b - a);
  const w = dtype.startsWith('complex') ? 2 : 1; // numbers per element
  const values = new Float64Array(w * lengthOf(bshape));
  // the block a run (along dimension 0) at a time: `len` numbers in a row in both
  const len = w * (bshape.length === 0 ? 1 : bshape[0]);
  const at = new Array(bshape.length).fill(0);
  for (let i = 0; i < values.length; i += len) {
    let o = 0;
    for (let d = 0; d < at.length; d++) o += (ranges[d][0] + at[d]) * strides[d];
    o *= w;
    if (typed !== undefined && len >= 16) values.set(typed.subarray(o, o + len), i);
    else for (let t = 0; t < len; t++) values[i + t] = array[o + t];
    for (let d = 1; d < at.length; d++) {
      at[d]++;
      if (at[d] < bshape[d]) break;
      at[d] = 0;
    }
  }
  return spawn(
    ...placement(assign, idx, what, { procs, k, count, grid: gridOf(shape, blocks) }),
    blockFrom,
    dtype,
    bshape,
    values,
  );
}

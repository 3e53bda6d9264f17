import type { Context } from '@dtask/core';
import type { AssignmentGrid } from './assign-grid.js';
import type { DType, DTypeArray } from './dtype.js';
import type { Assignment } from './placement.js';

/** Options of the `DArray` constructors. */
export interface DArrayOptions {
  /** Element type; default `'float64'` (`DArray.from`: the source's). */
  dtype?: DType;
  /** The context whose processors run the chunks' tasks; default: the default context. */
  context?: Context;
  /**
   * Seed of `DArray.rand` (each block gets its own stream): the same seed gives the same
   * numbers. Without one, each call draws fresh numbers (as Julia's, NumPy's and Dask's do).
   */
  seed?: number;
  /**
   * Placement: the scope of the task making the block at each grid index (`(idx) => scope(…)`),
   * or Dagger's `'blockrow'`, `'blockcol'`, `'cyclicrow'`, `'cycliccol'` over the threads in
   * scope, or a grid of worker ids or processors (nested arrays, one level per dimension,
   * repeated over the blocks: Dagger's array of ids or processors); default (`'arbitrary'`):
   * contiguous runs of the column-major grid, one per thread.
   */
  assign?: Assignment | AssignmentGrid;
}

/** What `collect()` resolves to: the whole array, column-major. */
export interface Collected {
  /** The elements, column-major (element `(i, j)` of an `m×n` array at `i + j·m`). */
  data: DTypeArray;
  /** The shape. */
  shape: number[];
}

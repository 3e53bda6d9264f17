import { ArgumentError } from '@dtask/core';
import { gridAssignment } from './assign-grid.js';
import { type AutoBlocks, resolveBlocks } from './auto-blocks.js';
import {
  type Blocks,
  blockRanges,
  checkBlocks,
  checkShape,
  gridIndices,
  gridOf,
} from './blocks.js';
import type { DArrayOptions } from './darray-options.js';
import { checkDtype } from './dtype.js';
import { makeBlock } from './kernels.js';
import type { Parts } from './parts.js';
import { blockProcessors, placement, spawnerOf } from './placement.js';

/**
 * The parts of `DArray.zeros/ones/fill/rand`: one task per block making it where it lives
 * (`kind` 'fill' with `value`, or 'rand' from the seed), placed by `assign` or spread evenly.
 */
export function makeParts(
  shape: readonly number[],
  blocksOrAuto: Blocks | AutoBlocks,
  kind: string,
  value: number,
  options: DArrayOptions,
  what: string,
): Parts {
  const blocks = resolveBlocks(shape, blocksOrAuto, options.context);
  checkShape(shape, what);
  checkBlocks(shape, blocks, what);
  const dtype = checkDtype(options.dtype ?? 'float64', what);
  if (options.seed !== undefined && !Number.isInteger(options.seed)) {
    throw new ArgumentError(`${what}: seed must be an integer; got ${String(options.seed)}`);
  }
  const seed = options.seed ?? Math.floor(Math.random() * 2 ** 32);
  const spawn = spawnerOf(options.context);
  const grid = gridIndices(gridOf(shape, blocks));
  const assign = gridAssignment(options.assign, options.context, shape.length, what);
  const procs = typeof assign === 'function' ? [] : blockProcessors(options.context);
  const chunks = grid.map((idx, k) => {
    const bshape = blockRanges(shape, blocks, idx).map(([a, b]) => b - a);
    return spawn(
      ...placement(assign, idx, what, {
        procs,
        k,
        count: grid.length,
        grid: gridOf(shape, blocks),
      }),
      makeBlock,
      dtype,
      bshape,
      kind,
      value,
      (seed * 7919 + k * 104729) >>> 0,
    );
  });
  return { shape, blocks, dtype, chunks };
}

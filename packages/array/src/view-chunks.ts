import type { DTask } from '@dtask/core';
import type { Blocks } from './blocks.js';
import { writeBlock } from './copy-kernels.js';
import { copyPlanOf } from './copy-plan.js';
import type { Block } from './kernels.js';
import type { ArrayData } from './parts.js';
import { spawnerOf } from './placement.js';
import { type Pick, wholeOf } from './selectors.js';

/**
 * What a view is of: its root array (never a view; `A`, a `DArray` where the class holds it)
 * and one pick per root dimension.
 */
export interface ViewOf<A extends ArrayData = ArrayData> {
  /** The array the view reads and writes (a view of a view has its parent's root). */
  parent: A;
  /** One pick per dimension of `parent`; dropped ones are not dimensions of the view. */
  picks: readonly Pick[];
}

/**
 * The chunk tasks of a view of `of` of `shape` cut by `blocks`: one task per block, copying
 * its elements from the parent's current blocks it overlaps, where the scheduler puts it.
 */
export function materialize(
  view: { readonly shape: readonly number[]; readonly blocks: Blocks },
  of: ViewOf,
): DTask<Block>[] {
  const { parent, picks } = of;
  const plan = copyPlanOf(
    { shape: view.shape, blocks: view.blocks, picks: view.shape.map(wholeOf) },
    { shape: parent.shape, blocks: parent.blocks, picks },
    'da.view(...selectors)',
  );
  const spawn = spawnerOf(parent.context);
  const source = parent.chunks;
  const chunks: DTask<Block>[] = new Array(plan.length);
  for (const b of plan) {
    chunks[b.flat] = spawn(
      writeBlock,
      parent.dtype,
      b.shape,
      true,
      b.pieces,
      null,
      null,
      ...b.sources.map((k) => source[k]),
    );
  }
  return chunks;
}

import type { DTask } from '@dtask/core';
import type { Blocks } from './blocks.js';
import type { DArray } from './darray.js';
import type { Block } from './kernels.js';
import type { ViewOf } from './view-chunks.js';

/** What other files of the package reach inside a `DArray` through (not exported publicly). */
export interface DArrayInternals {
  /** Replace the tasks of some chunks (flat grid index → task): a write, copy-on-write. */
  write(a: DArray, updates: ReadonlyMap<number, DTask<Block>>): void;
  /** A view of `of.parent` with `shape` cut by `blocks`. */
  makeView(of: ViewOf, shape: readonly number[], blocks: Blocks): DArray;
  /** A view's parent and picks; undefined for an array that is not a view. */
  viewOf(a: DArray): ViewOf | undefined;
}

let installed: DArrayInternals | undefined;

/** Called once by `DArray`'s static block. */
export function installInternals(i: DArrayInternals): void {
  installed = i;
}

/** The `DArray` internals (installed when darray.ts is loaded). */
export function internals(): DArrayInternals {
  return installed as DArrayInternals;
}

import type { DTask } from '@dtask/core';
import type { Complex } from './dtype.js';
import type { CallerArray } from './indexing.js';
import type { Block } from './kernels.js';
import type { ArrayData } from './parts.js';
import type { Selector } from './selectors.js';
import type { ViewOf } from './view-chunks.js';

/**
 * What the operations above the class (`copyto`, `cat`, the in-place ones) reach inside a
 * `DArray` through (not exported publicly). The class installs it; each `a` is a `DArray`.
 */
export interface DArrayInternals {
  /** Replace the tasks of some chunks (flat grid index → task): a write, copy-on-write. */
  write(a: ArrayData, updates: ReadonlyMap<number, DTask<Block>>): void;
  /** `da.set(selectors, value)` (all of `a` when `selectors` is undefined), naming `what`. */
  set(
    a: ArrayData,
    selectors: readonly Selector[] | number | undefined,
    value: number | Complex | ArrayData | CallerArray,
    what: string,
  ): void;
  /** A view's parent and picks; undefined for an array that is not a view. */
  viewOf(a: ArrayData): ViewOf | undefined;
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

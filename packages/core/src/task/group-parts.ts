import type { LocalStore } from '../chunk/local-store.js';
import { sizeOf } from '../chunk/size-of.js';
import { SchedulingError } from '../errors/errors.js';

const BRAND = Symbol.for('dtask.groupParts');

/**
 * A group task's outputs as its function returns them (`groupParts`): each is kept in the
 * worker's store under a key of its own, `base + i`, ids the caller reserved (`takeTaskIds`).
 */
export interface GroupParts {
  readonly [BRAND]: true;
  /** The first output's key. */
  readonly base: number;
  /** The outputs, in order. */
  readonly values: readonly unknown[];
}

/** What a group task reports once its outputs are stored: their first key and their sizes. */
export interface StoredParts {
  readonly base: number;
  readonly sizes: number[];
}

/** Marks `values` as a group task's outputs, to be kept under keys `base`, `base + 1`, .... */
export function groupParts(base: number, values: readonly unknown[]): GroupParts {
  return { [BRAND]: true, base, values };
}

/** True for what `groupParts` returns (from any copy of the package). */
export function isGroupParts(value: unknown): value is GroupParts {
  return (
    typeof value === 'object' &&
    value !== null &&
    (value as Record<symbol, unknown>)[BRAND] === true
  );
}

/** What `storeParts` tells of each output kept: the runtime's block pool (block-pool.ts). */
export interface PartsPool {
  /** The buffers the kernels the group's function called were handed (once). */
  takeCalled(): SharedArrayBuffer[] | undefined;
  /**
   * Output `key` is kept: its memory returns to the pool when released unread, if it is one of
   * `handed` (that buffer is returned).
   */
  made(key: number, value: unknown, handed: readonly SharedArrayBuffer[]): unknown;
}

/**
 * Keeps each of `parts`' outputs in `store` under its own key, each told to `pool` (a block a
 * kernel the group called made returns its memory there once released unread); their first
 * key and sizes.
 */
export function storeParts(store: LocalStore, parts: GroupParts, pool?: PartsPool): StoredParts {
  const { base, values } = parts;
  const sizes = new Array<number>(values.length);
  const handed = pool?.takeCalled();
  for (let i = 0; i < values.length; i++) {
    const bytes = sizeOf(values[i]);
    store.set(base + i, values[i], bytes);
    // A buffer counts for one output at most (an output given twice is not two blocks).
    if (handed !== undefined && handed.length > 0) {
      const claimed = pool!.made(base + i, values[i], handed);
      if (claimed !== undefined) handed.splice(handed.indexOf(claimed as SharedArrayBuffer), 1);
    }
    sizes[i] = bytes;
  }
  return { base, sizes };
}

/**
 * The function of a group's output handle (`spawnGroup`): such a handle is never run itself;
 * its output is made by its group's task.
 */
export function groupOutput(): never {
  throw new SchedulingError(
    'A group task output is made by its group, not run on its own: spawn the group again',
  );
}

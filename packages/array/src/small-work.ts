import { ArgumentError, type DTask } from '@dtask/core';
import { heldRemotely } from '@dtask/core/plugin';

/**
 * Below this many elements an operation's whole work is small: a task per block would cost
 * more than the work (on worker threads a block task costs tens of µs, a sum does about one
 * element per ns), so its blocks are worked on by one task per processor holding them.
 * Measured on 2 worker threads (docs/performance.md, "Small DArray operations").
 */
export const DEFAULT_SMALL_WORK_ELEMENTS = 2 ** 23;

let limit = DEFAULT_SMALL_WORK_ELEMENTS;

/**
 * Sets the number of elements below which (inclusive) an operation on a `DArray` counts as
 * small (its blocks reduced by one task per processor holding them, not a task per block);
 * returns the previous value. 0 makes every operation take a task per block; `Infinity`, none.
 * Results are the same either way, to the bit.
 */
export function setSmallWorkElements(elements: number): number {
  if (typeof elements !== 'number' || !(elements >= 0)) {
    throw new ArgumentError(
      `setSmallWorkElements(elements): give a number ≥ 0 (0: a task per block always, Infinity: never); got ${String(elements)}`,
    );
  }
  const previous = limit;
  limit = elements;
  return previous;
}

/** Whether an operation over `elements` elements is small (see `setSmallWorkElements`). */
export function isSmallWork(elements: number): boolean {
  return elements <= limit;
}

/** Blocks that live in one place, with their positions in the list they came from. */
export interface HomeGroup<T> {
  chunks: DTask<T>[];
  positions: number[];
}

/**
 * `chunks` grouped by where their data is: the blocks held by one worker together, the
 * finished blocks held by this thread together, and each block not finished yet alone (where
 * it will be is not known yet). Groups and blocks within them keep the order of `chunks`.
 */
export function groupByHome<T>(chunks: readonly DTask<T>[]): HomeGroup<T>[] {
  const groups = new Map<unknown, HomeGroup<T>>();
  const result: HomeGroup<T>[] = [];
  chunks.forEach((c, k) => {
    const key = heldRemotely(c)?.id ?? (c.isReady() ? 'here' : undefined);
    let group = key === undefined ? undefined : groups.get(key);
    if (group === undefined) {
      group = { chunks: [], positions: [] };
      result.push(group);
      if (key !== undefined) groups.set(key, group);
    }
    group.chunks.push(c);
    group.positions.push(k);
  });
  return result;
}

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
  /** Set once handles were made for these outputs (`groupPartHandles`, once per group). */
  handed?: boolean;
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

/** Keeps each of `parts`' outputs in `store` under its own key; their first key and sizes. */
export function storeParts(store: LocalStore, parts: GroupParts): StoredParts {
  const { base, values } = parts;
  const sizes = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const bytes = sizeOf(values[i]);
    store.set(base + i, values[i], bytes);
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

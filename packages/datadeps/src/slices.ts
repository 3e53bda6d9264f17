import { ArgumentError } from '@dtask/core';

/**
 * One index of `view(x, ...slices)`, 0-based, as API.md writes ranges:
 * - an integer `i`: that one index; the dimension is dropped (like Julia's `view(A, 1, :)`);
 * - `[start, end]`: the half-open range `start ≤ i < end`;
 * - `[start, end, step]`: every `step`-th index from `start` below `end` (`step` ≥ 1);
 * - `':'`: the whole dimension.
 * Negative indices and steps are not supported (they are an `ArgumentError`).
 */
export type Slice = number | ':' | readonly [start: number, end: number, step?: number];

/** A slice checked against its dimension: indices `start, start+step, … < end`. */
export interface NormalSlice {
  readonly start: number;
  readonly end: number;
  readonly step: number;
  /** True for an integer index: the dimension disappears from the result. */
  readonly drop: boolean;
}

function describe(x: unknown): string {
  if (typeof x === 'string') return `'${x}'`;
  if (Array.isArray(x)) return `[${x.join(', ')}]`;
  return String(x);
}

/**
 * How an error names slice `s` at `position`. Built only on the way to an error, and by a
 * function of its own, not a closure per call: views are made per task, often hundreds per
 * region, and the build names every closure it makes (`keepNames`), which costs microseconds.
 */
function what(s: unknown, position: number): string {
  return `view(): slice ${position} (${describe(s)})`;
}

/**
 * Checks the syntax of one slice (types, signs, step), without knowing the dimension's length.
 * Throws `ArgumentError` saying what a slice may be.
 */
export function checkSlice(s: unknown, position: number): asserts s is Slice {
  if (s === ':') return;
  if (typeof s === 'number') {
    if (!Number.isInteger(s) || s < 0) {
      throw new ArgumentError(
        `${what(s, position)} must be a non-negative integer index (indices are 0-based)`,
      );
    }
    return;
  }
  if (Array.isArray(s) && (s.length === 2 || s.length === 3)) {
    // Read by index, not destructured: destructuring walks the array's iterator, which costs
    // 0.1-0.3 µs a slice until V8 optimises the caller (views are made per task).
    const start = (s as number[])[0];
    const end = (s as number[])[1];
    const step = s.length === 3 && s[2] !== undefined ? (s as number[])[2] : 1;
    if (!Number.isInteger(start) || !Number.isInteger(end) || !Number.isInteger(step)) {
      throw new ArgumentError(
        `${what(s, position)}: a range is [start, end] or [start, end, step] of integers`,
      );
    }
    if (start < 0 || end < start) {
      throw new ArgumentError(
        `${what(s, position)}: a range [start, end) needs 0 ≤ start ≤ end (half-open, 0-based)`,
      );
    }
    if (step < 1) throw new ArgumentError(`${what(s, position)}: the step must be 1 or more`);
    return;
  }
  throw new ArgumentError(
    `${what(s, position)} is not a slice: use an integer index, [start, end], [start, end, step] or ':'`,
  );
}

/**
 * Checks `slices`, each well-formed (`checkSlice`), against a value of shape `shape`: one per
 * dimension, each within its dimension's length; throws `ArgumentError` saying what is wrong.
 * Makes nothing: `view()` checks every tile of a tiled algorithm with it.
 */
export function checkSlicesFit(slices: readonly unknown[], shape: readonly number[]): void {
  if (slices.length !== shape.length) {
    throw new ArgumentError(
      `view(): ${slices.length} slice(s) given for data with ${shape.length} dimension(s) ` +
        `(shape [${shape.join(', ')}]); give one slice per dimension, ':' for all of it`,
    );
  }
  for (let d = 0; d < slices.length; d++) {
    const s = slices[d];
    const n = shape[d];
    if (s === ':') continue;
    if (typeof s === 'number') {
      if (s >= n) {
        throw new ArgumentError(
          `view(): index ${s} is out of bounds for dimension ${d} of length ${n} (valid: 0…${n - 1})`,
        );
      }
      continue;
    }
    const end = (s as readonly number[])[1];
    if (end > n) {
      const start = (s as readonly number[])[0];
      throw new ArgumentError(
        `view(): range [${start}, ${end}) is out of bounds for dimension ${d} of length ${n}`,
      );
    }
  }
}

/** How many indices a normalized slice selects. */
export function sliceLength(s: NormalSlice): number {
  return s.end <= s.start ? 0 : Math.ceil((s.end - s.start) / s.step);
}

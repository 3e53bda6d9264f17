/**
 * Byte ranges as flat sorted lists `[lo0, hi0, lo1, hi1, …]` of half-open, disjoint,
 * non-adjacent intervals: the memory a typed array or a strided view touches.
 */
export type Intervals = number[];

/** Everything (an object used whole, without a byte layout). */
export const WHOLE: Intervals = [0, Number.POSITIVE_INFINITY];

/** Sorts and merges raw `[lo, hi]` pairs (overlapping or adjacent pairs become one). */
export function normalizeIntervals(raw: number[]): Intervals {
  const n = raw.length / 2;
  if (n <= 1) return raw;
  let sorted = true;
  for (let k = 1; k < n && sorted; k++) if (raw[2 * k] < raw[2 * k - 2]) sorted = false;
  let pairs = raw;
  if (!sorted) {
    const order = Array.from({ length: n }, (_, k) => k).sort((a, b) => raw[2 * a] - raw[2 * b]);
    pairs = new Array<number>(raw.length);
    for (let k = 0; k < n; k++) {
      pairs[2 * k] = raw[2 * order[k]];
      pairs[2 * k + 1] = raw[2 * order[k] + 1];
    }
  }
  const out: Intervals = [pairs[0], pairs[1]];
  for (let k = 1; k < n; k++) {
    const lo = pairs[2 * k];
    const hi = pairs[2 * k + 1];
    if (lo <= out[out.length - 1]) {
      if (hi > out[out.length - 1]) out[out.length - 1] = hi;
    } else out.push(lo, hi);
  }
  return out;
}

/** True when two interval lists share at least one byte (linear merge). */
export function intervalsOverlap(a: Intervals, b: Intervals): boolean {
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    if (a[i + 1] <= b[j]) i += 2;
    else if (b[j + 1] <= a[i]) j += 2;
    else return true;
  }
  return false;
}

/** True when two interval lists are the same. */
export function intervalsEqual(a: Intervals, b: Intervals): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

// Kernels of the distributed sort: self-contained, so they travel as source text.
import type { Block } from './kernels.js';

/** The order: `rev`, and the sources of `by` and `lt` (or null). */
export interface SortOrder {
  rev: boolean;
  by: string | null;
  lt: string | null;
}

/**
 * The comparator of `order` (NaN after every number, as Julia's `isless`). Kernels get its
 * source text (`comparatorOf.toString()`) and compile it where they run.
 */
export function comparatorOf(order: SortOrder): (a: number, b: number) => number {
  const by =
    order.by === null ? null : (new Function(`return (${order.by});`)() as (x: number) => number);
  const lt =
    order.lt === null
      ? null
      : (new Function(`return (${order.lt});`)() as (x: number, y: number) => boolean);
  const less = (x: number, y: number): boolean => {
    if (lt !== null) return lt(x, y);
    if (Number.isNaN(x)) return false;
    return Number.isNaN(y) ? true : x < y;
  };
  const cmp = (a: number, b: number): number => {
    const x = by === null ? a : by(a);
    const y = by === null ? b : by(b);
    return less(x, y) ? -1 : less(y, x) ? 1 : 0;
  };
  return order.rev ? (a, b) => cmp(b, a) : cmp;
}

/** A sorted copy of a 1-D block (stable). */
export function sortBlock(a: Block, order: SortOrder, factory: string): Block {
  const C = a.data.constructor as Float64ArrayConstructor;
  const n = a.shape[0];
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  for (let i = 0; i < n; i++) data[i] = a.data[a.offset + i * a.strides[0]];
  const plain = !order.rev && order.by === null && order.lt === null;
  const cmp = plain
    ? null
    : (new Function(`return (${factory});`)()(order) as (x: number, y: number) => number);
  if (cmp === null) data.sort();
  else data.sort(cmp);
  return { data, shape: [n], strides: [1], offset: 0 };
}

/** Up to `m` elements of a sorted block, evenly spaced (the splitters' sample). */
export function sampleBlock(a: Block, m: number): number[] {
  const n = a.shape[0];
  const out: number[] = [];
  const k = Math.min(m, n);
  for (let i = 0; i < k; i++) out.push(a.data[Math.floor(((i + 0.5) * n) / k)]);
  return out;
}

/**
 * Where each bucket starts in a sorted block: bucket `k` holds the elements after splitter
 * `k − 1` up to and including splitter `k` (the last bucket the rest), found by binary search.
 */
export function bucketBounds(
  a: Block,
  splitters: number[],
  order: SortOrder,
  factory: string,
): number[] {
  const cmp = new Function(`return (${factory});`)()(order) as (x: number, y: number) => number;
  const n = a.shape[0];
  const bounds = [0];
  for (const s of splitters) {
    let lo = bounds[bounds.length - 1];
    let hi = n;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(a.data[mid], s) <= 0) lo = mid + 1;
      else hi = mid;
    }
    bounds.push(lo);
  }
  bounds.push(n);
  return bounds;
}

/** Elements `[lo, hi)` of a 1-D block, as a new block. */
export function takeRange(a: Block, lo: number, hi: number): Block {
  const C = a.data.constructor as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer((hi - lo) * C.BYTES_PER_ELEMENT));
  data.set(a.data.subarray(lo, hi) as unknown as Float64Array);
  return { data, shape: [hi - lo], strides: [1], offset: 0 };
}

/**
 * One output block of the sort: for each bucket it overlaps (`plan[b]`: how many of the
 * `pieces` are its parts, in block order, and which of its sorted positions `[lo, hi)` fall in
 * this block), the bucket's parts merged (a stable sort of their concatenation) and that range
 * written in order.
 */
export function mergeBuckets(
  dtype: string,
  n: number,
  plan: { parts: number; lo: number; hi: number }[],
  order: SortOrder,
  factory: string,
  ...pieces: Block[]
): Block {
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const plain = !order.rev && order.by === null && order.lt === null;
  const cmp = plain
    ? null
    : (new Function(`return (${factory});`)()(order) as (x: number, y: number) => number);
  let next = 0;
  let at = 0;
  for (const { parts, lo, hi } of plan) {
    let size = 0;
    for (let p = 0; p < parts; p++) size += pieces[next + p].shape[0];
    const all = new C(size);
    let o = 0;
    for (let p = 0; p < parts; p++) {
      all.set(pieces[next + p].data as unknown as Float64Array, o);
      o += pieces[next + p].shape[0];
    }
    next += parts;
    if (cmp === null) all.sort();
    else all.sort(cmp);
    data.set(all.subarray(lo, hi), at);
    at += hi - lo;
  }
  return { data, shape: [n], strides: [1], offset: 0 };
}

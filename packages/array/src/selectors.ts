import { ArgumentError } from '@dtask/core';

/**
 * What picks elements along one dimension (Julia's indices, 0-based): `':'` for all of it,
 * `[start, end)` or `[start, end, step]` (half-open, step ≥ 1), one index `i` (that element;
 * the dimension is dropped, as Julia's `A[i, :]` is a vector), or an index list
 * `{ indices: [2, 0, 7] }` (any order, repeats allowed: Julia's `A[[3, 1, 8], :]`).
 */
export type Selector =
  | ':'
  | number
  | readonly [number, number]
  | readonly [number, number, number]
  | { readonly indices: ArrayLike<number> };

/**
 * One dimension's pick, resolved: the source index of each output position, as a range
 * (`start + o·step`) or a list, and whether the dimension is dropped (a single index).
 */
export type Pick =
  | { kind: 'range'; start: number; step: number; count: number; drop: boolean }
  | { kind: 'list'; indices: readonly number[]; drop: false };

/** Output positions along the pick. */
export function countOf(p: Pick): number {
  return p.kind === 'range' ? p.count : p.indices.length;
}

/** The source index of output position `o`. */
export function indexAt(p: Pick, o: number): number {
  return p.kind === 'range' ? p.start + o * p.step : p.indices[o];
}

/** The whole of a dimension of size `n`. */
export function wholeOf(n: number): Pick {
  return { kind: 'range', start: 0, step: 1, count: n, drop: false };
}

/**
 * The picks of `selectors` over `shape` (one selector per dimension), or `ArgumentError`
 * naming the bad selector, its dimension and the shape (`what` names the call).
 */
export function picksOf(
  shape: readonly number[],
  selectors: readonly Selector[],
  what: string,
  array: string,
): Pick[] {
  if (!Array.isArray(selectors) || selectors.length !== shape.length) {
    throw new ArgumentError(
      `${what}: give ${shape.length} selectors (':', an index, [start, end), [start, end, step] or { indices: [...] }), one per dimension of ${array}; got ${Array.isArray(selectors) ? selectors.length : String(selectors)}`,
    );
  }
  return selectors.map((s, d) => pickOf(s, shape[d], d, what, array));
}

function pickOf(s: Selector, n: number, d: number, what: string, array: string): Pick {
  const bad = (why: string): never => {
    throw new ArgumentError(
      `${what}: selector ${d} ${why} (dimension ${d} of ${array} has ${n} elements, indices 0…${n - 1}); got ${describeSelector(s)}`,
    );
  };
  if (s === ':') return wholeOf(n);
  if (typeof s === 'number') {
    if (!Number.isInteger(s) || s < 0 || s >= n) bad('must be an integer index within bounds');
    return { kind: 'range', start: s, step: 1, count: 1, drop: true };
  }
  if (Array.isArray(s)) {
    const [start = Number.NaN, end = Number.NaN, step = 1] = s as number[];
    if (!((s.length === 2 || s.length === 3) && [start, end, step].every(Number.isInteger))) {
      bad('must be [start, end) or [start, end, step] of integers');
    }
    if (step < 1) bad('must have a step ≥ 1');
    // A range with start ≥ end is empty wherever it starts, as in Julia (5:2) and NumPy.
    if (start >= end) return { kind: 'range', start: 0, step: 1, count: 0, drop: false };
    if (start < 0 || end > n) bad(`must lie within [0, ${n}]`);
    return { kind: 'range', start, step, count: Math.ceil((end - start) / step), drop: false };
  }
  if (s !== null && typeof s === 'object' && 'indices' in s) {
    const list = s.indices;
    if (list === null || typeof list !== 'object' || typeof list.length !== 'number') {
      bad('{ indices } must hold an array of integers');
    }
    const indices = Array.from(list);
    if (indices.some((i) => !Number.isInteger(i) || i < 0 || i >= n)) {
      bad('{ indices } must hold integer indices within bounds');
    }
    return { kind: 'list', indices, drop: false };
  }
  return bad("must be ':', an index, [start, end), [start, end, step] or { indices: [...] }");
}

function describeSelector(s: unknown): string {
  try {
    if (s !== null && typeof s === 'object' && 'indices' in s) {
      const list = Array.from((s as { indices: ArrayLike<unknown> }).indices ?? []);
      return `{ indices: [${list.slice(0, 8).map(String).join(', ')}${list.length > 8 ? ', …' : ''}] }`;
    }
    return typeof s === 'string' ? `'${s}'` : (JSON.stringify(s) ?? String(s));
  } catch {
    return String(s);
  }
}

/**
 * `outer` applied after `inner`: the pick of the root array's dimension that a selection of a
 * view (`outer`, over the view's dimension) makes through the view's own pick (`inner`).
 */
export function compose(inner: Pick, outer: Pick): Pick {
  if (inner.kind === 'range' && outer.kind === 'range') {
    return {
      kind: 'range',
      start: inner.start + outer.start * inner.step,
      step: inner.step * outer.step,
      count: outer.count,
      drop: outer.drop,
    };
  }
  const indices: number[] = [];
  for (let o = 0; o < countOf(outer); o++) indices.push(indexAt(inner, indexAt(outer, o)));
  if (outer.kind === 'range' && outer.drop) {
    return { kind: 'range', start: indices[0], step: 1, count: 1, drop: true };
  }
  return { kind: 'list', indices, drop: false };
}

/** The shape a selection gives: the picks' counts, dropped dimensions left out. */
export function keptShape(picks: readonly Pick[]): number[] {
  return picks.filter((p) => !p.drop).map(countOf);
}

// Plain single-threaded references for selections and assignment (column-major, 0-based).

/** One selector, as `DArray.slice`/`view`/`set` take it. */
export type RefSelector = ':' | number | number[] | { indices: number[] };

/** The source indices a selector picks along a dimension of size `n`, and whether it drops it. */
function picks(s: RefSelector, n: number): { list: number[]; drop: boolean } {
  if (s === ':') return { list: [...Array(n).keys()], drop: false };
  if (typeof s === 'number') return { list: [s], drop: true };
  if (Array.isArray(s)) {
    const [a, b, step = 1] = s;
    const list: number[] = [];
    for (let i = a; i < b; i += step) list.push(i);
    return { list, drop: false };
  }
  return { list: [...s.indices], drop: false };
}

/** Every combination of positions, column-major (the first varies fastest). */
function* positions(counts: number[]): Generator<number[]> {
  const total = counts.reduce((a, b) => a * b, 1);
  const idx = counts.map(() => 0);
  for (let k = 0; k < total; k++) {
    yield idx;
    for (let d = 0; d < counts.length; d++) {
      if (++idx[d] < counts[d]) break;
      idx[d] = 0;
    }
  }
}

function offsetOf(index: number[], shape: number[]): number {
  let o = 0;
  let s = 1;
  index.forEach((i, d) => {
    o += i * s;
    s *= shape[d];
  });
  return o;
}

/** `x[selectors...]` (Julia's getindex, 0-based): the elements and the kept shape. */
export function selectRef(
  x: ArrayLike<number>,
  shape: number[],
  selectors: RefSelector[],
): { data: number[]; shape: number[] } {
  const p = selectors.map((s, d) => picks(s, shape[d]));
  const data: number[] = [];
  for (const pos of positions(p.map((q) => q.list.length))) {
    data.push(
      x[
        offsetOf(
          pos.map((o, d) => p[d].list[o]),
          shape,
        )
      ],
    );
  }
  return { data, shape: p.filter((q) => !q.drop).map((q) => q.list.length) };
}

/** `x[selectors...] = value` in place: a number everywhere, or `value`'s elements in order. */
export function assignRef(
  x: { [i: number]: number },
  shape: number[],
  selectors: RefSelector[],
  value: number | ArrayLike<number>,
): void {
  const p = selectors.map((s, d) => picks(s, shape[d]));
  let k = 0;
  for (const pos of positions(p.map((q) => q.list.length))) {
    x[
      offsetOf(
        pos.map((o, d) => p[d].list[o]),
        shape,
      )
    ] = typeof value === 'number' ? value : value[k++];
  }
}

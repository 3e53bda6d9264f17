// A plain single-threaded stencil over a whole column-major array, the tests' reference:
// element by element, each read past an edge resolved by the boundary conditions (the
// highest dimension past its edge first, so the conditions apply dimension by dimension).
import type { BoundarySpec } from '../boundary.js';

/** A whole array: `{ data, shape }`, column-major. */
export interface Whole {
  data: ArrayLike<number>;
  shape: readonly number[];
}

/** The value of `a` at `idx` (which may lie past the edges) under `bcs` (one per dimension). */
export function valueAt(a: Whole, bcs: readonly BoundarySpec[], idx: readonly number[]): number {
  const nd = a.shape.length;
  const i = idx.map((x, d) =>
    bcs[d].kind === 'wrap' ? ((x % a.shape[d]) + a.shape[d]) % a.shape[d] : x,
  );
  let d = nd - 1;
  while (d >= 0 && i[d] >= 0 && i[d] < a.shape[d]) d--;
  if (d < 0) {
    let o = 0;
    let s = 1;
    for (let x = 0; x < nd; x++) {
      o += i[x] * s;
      s *= a.shape[x];
    }
    return a.data[o];
  }
  const n = a.shape[d];
  const at = (j: number) =>
    valueAt(
      a,
      bcs,
      i.map((x, e) => (e === d ? j : x)),
    );
  const low = i[d] < 0;
  const k = low ? -i[d] : i[d] - (n - 1);
  const edge = low ? 0 : n - 1;
  const dir = low ? 1 : -1; // towards the inside
  const bc = bcs[d];
  const earlierLinear = i.some(
    (x, e) => e < d && (x < 0 || x >= a.shape[e]) && bcs[e].kind === 'linear',
  );
  if (bc.kind === 'pad') return bc.value as number;
  if (bc.kind === 'clamp' || (bc.kind === 'linear' && earlierLinear)) return at(edge);
  if (bc.kind === 'linear') return at(edge) + k * (at(edge) - at(edge + dir));
  const mirrored = at(edge + dir * (k - 1 + (bc.symmetric ? 0 : 1)));
  return bc.kind === 'antireflect' ? -mirrored : mirrored;
}

/**
 * `kernel(at, idx)` at every element of the shape of the inputs (all the same shape), with
 * `at.NAME(...offsets)` reading input NAME through `valueAt`: a Float64Array, column-major.
 */
export function referenceStencil(
  inputs: Record<string, Whole>,
  bcs: Record<string, readonly BoundarySpec[]>,
  kernel: (at: Record<string, (...o: number[]) => number>, idx: number[]) => number,
): Float64Array {
  const shape = Object.values(inputs)[0].shape;
  const n = shape.reduce((x, y) => x * y, 1);
  const out = new Float64Array(n);
  const idx = new Array(shape.length).fill(0);
  const at: Record<string, (...o: number[]) => number> = {};
  for (const [name, a] of Object.entries(inputs)) {
    at[name] = (...o: number[]) =>
      valueAt(
        a,
        bcs[name],
        idx.map((x, d) => x + o[d]),
      );
  }
  for (let k = 0; k < n; k++) {
    out[k] = kernel(at, idx.slice());
    for (let d = 0; d < shape.length; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

import { describe, expect, it } from 'vitest';
import type { StridedView } from '../strided-view.js';
import { gemm, potrf, syrk, trsm } from './tile-kernels.js';

type Tile = StridedView<Float64Array>;

/** A `rows × cols` tile at (`r0`, `c0`) of a `side × side` row-major matrix of pseudo-random values. */
function matrix(side: number, seed: number): Float64Array {
  let s = seed;
  return Float64Array.from({ length: side * side }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}
const tile = (
  data: Float64Array,
  side: number,
  r0: number,
  c0: number,
  rows: number,
  cols: number,
): Tile => ({
  data,
  shape: [rows, cols],
  strides: [side, 1],
  offset: r0 * side + c0,
});
const at = (t: Tile, i: number, j: number) => t.offset + i * t.strides[0] + j * t.strides[1];

// The plain triple loops the blocked kernels replace: the same sums in the same order.
function gemmReference(a: Tile, b: Tile, c: Tile): void {
  for (let i = 0; i < c.shape[0]; i++)
    for (let j = 0; j < c.shape[1]; j++) {
      let s = 0;
      for (let p = 0; p < a.shape[1]; p++) s += a.data[at(a, i, p)] * b.data[at(b, j, p)];
      c.data[at(c, i, j)] -= s;
    }
}
function syrkReference(a: Tile, c: Tile): void {
  for (let i = 0; i < c.shape[0]; i++)
    for (let j = 0; j <= i; j++) {
      let s = 0;
      for (let p = 0; p < a.shape[1]; p++) s += a.data[at(a, i, p)] * a.data[at(a, j, p)];
      c.data[at(c, i, j)] -= s;
    }
}
function trsmReference(l: Tile, b: Tile): void {
  for (let r = 0; r < b.shape[0]; r++)
    for (let j = 0; j < b.shape[1]; j++) {
      let t = b.data[at(b, r, j)];
      for (let p = 0; p < j; p++) t -= b.data[at(b, r, p)] * l.data[at(l, j, p)];
      b.data[at(b, r, j)] = t / l.data[at(l, j, j)];
    }
}

describe('tile kernels (2×2 blocked) against the plain loops', () => {
  // Odd and even sizes: the blocked loops pair an odd last row or column with itself.
  for (const [m, n, k] of [
    [4, 4, 4],
    [5, 5, 5],
    [6, 3, 7],
    [1, 1, 3],
    [7, 8, 2],
  ]) {
    it(`gemm and trsm on ${m}×${n} tiles (k = ${k}) give the same bits; the rest of the matrix is untouched`, () => {
      const side = 20;
      const x = matrix(side, 7);
      const y = x.slice();
      gemm(tile(x, side, 0, 0, m, k), tile(x, side, 10, 0, n, k), tile(x, side, 3, 9, m, n));
      gemmReference(
        tile(y, side, 0, 0, m, k),
        tile(y, side, 10, 0, n, k),
        tile(y, side, 3, 9, m, n),
      );
      expect(x).toEqual(y);
      // trsm needs a non-singular lower triangle: make its diagonal large.
      for (let j = 0; j < n; j++) x[(12 + j) * side + 12 + j] = y[(12 + j) * side + 12 + j] = 3 + j;
      trsm(tile(x, side, 12, 12, n, n), tile(x, side, 1, 1, m, n));
      trsmReference(tile(y, side, 12, 12, n, n), tile(y, side, 1, 1, m, n));
      expect(x).toEqual(y);
    });
    it(`syrk on a ${n}×${n} tile (k = ${k}) writes the same lower triangle and nothing above it`, () => {
      const side = 20;
      const x = matrix(side, 11);
      const y = x.slice();
      syrk(tile(x, side, 0, 0, n, k), tile(x, side, 8, 8, n, n));
      syrkReference(tile(y, side, 0, 0, n, k), tile(y, side, 8, 8, n, n));
      expect(x).toEqual(y);
    });
  }

  it('potrf still rejects a matrix that is not positive definite', () => {
    const x = new Float64Array([1, 2, 2, 1]);
    expect(() => potrf(tile(x, 2, 0, 0, 2, 2))).toThrow(/not positive definite/);
  });
});

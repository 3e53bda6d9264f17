import * as js from '@dtask/datadeps/examples';
import { describe, expect, it } from 'vitest';
import { gemm, potrf, syrk, trsm } from './cholesky-tiles.js';

// The SIMD tile kernels against datadeps' plain JavaScript ones, on tiles that are views into a
// larger column-major matrix (an offset and its leading dimension) and on transposed views:
// equal within 1e-13·(1 + |x|) (sums of up to 100 products, added in another order).
const TOL = 1e-13;

let seed = 99;
const rand = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};

type Tile = { data: Float64Array; shape: number[]; strides: number[]; offset: number };

/** A `rows × cols` view inside a larger matrix: column-major, or row-major when `transposed`. */
function tile(rows: number, cols: number, transposed: boolean, fill = rand): Tile {
  const ld = (transposed ? cols : rows) + 5;
  const other = transposed ? rows : cols;
  const data = new Float64Array(7 + ld * other).map(fill);
  const strides = transposed ? [ld, 1] : [1, ld];
  return { data, shape: [rows, cols], strides, offset: 7 };
}

const copy = (t: Tile): Tile => ({ ...t, data: t.data.slice() });

function expectClose(got: Tile, want: Tile): void {
  let worst = 0;
  for (let i = 0; i < want.data.length; i++) {
    worst = Math.max(worst, Math.abs(got.data[i] - want.data[i]) / (1 + Math.abs(want.data[i])));
  }
  expect(worst).toBeLessThanOrEqual(TOL);
}

/** A symmetric positive definite `n × n` tile (as a view), lower and upper both filled. */
function spd(n: number, transposed: boolean): Tile {
  const t = tile(n, n, transposed, () => 0.25);
  const r = Array.from({ length: n * n }, rand);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let s = i === j ? n : 0;
      for (let p = 0; p < n; p++) s += r[i + p * n] * r[j + p * n];
      t.data[t.offset + i * t.strides[0] + j * t.strides[1]] = s;
    }
  return t;
}

describe('Cholesky tiles in WebAssembly SIMD', () => {
  const sizes = [1, 3, 8, 33, 70, 100, 257];
  for (const transposed of [false, true]) {
    const how = transposed ? 'transposed views' : 'views';
    it(`gemm and syrk equal the plain JavaScript tiles on ${how}`, () => {
      for (const m of sizes)
        for (const k of [1, 5, 64]) {
          const n = sizes[(m + k) % sizes.length];
          const a = tile(m, k, transposed);
          const b = tile(n, k, !transposed);
          const c = tile(m, n, transposed);
          const want = copy(c);
          gemm(a, b, c);
          js.gemm(a, b, want);
          expectClose(c, want);
          const s = tile(m, m, transposed);
          const sWant = copy(s);
          syrk(a, s);
          js.syrk(a, sWant);
          expectClose(s, sWant); // the strict upper triangle untouched by both
        }
    });

    it(`potrf and trsm equal the plain JavaScript tiles on ${how}`, () => {
      for (const n of sizes) {
        const a = spd(n, transposed);
        const want = copy(a);
        potrf(a);
        js.potrf(want);
        expectClose(a, want);
        for (const m of [1, 6, 40]) {
          const b = tile(m, n, !transposed);
          const bWant = copy(b);
          trsm(a, b);
          js.trsm(a, bWant);
          expectClose(b, bWant);
        }
      }
    });
  }

  it('potrf throws on a tile that is not positive definite', () => {
    const a = tile(40, 40, false, () => 0);
    for (let i = 0; i < 40; i++) a.data[a.offset + i * (a.strides[0] + a.strides[1])] = 1;
    a.data[a.offset + 35 * (a.strides[0] + a.strides[1])] = -1;
    expect(() => potrf(a)).toThrow(/leading minor of order 36 is not positive/);
    expect(() => potrf(a, 80)).toThrow(
      expect.objectContaining({ code: 'DTASK_POSDEF', name: 'PosDefError', info: 116 }),
    );
  });
});

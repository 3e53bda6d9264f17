import { describe, expect, it } from 'vitest';
import { geqrt, larfb } from './qr-tiles.js';

// The QR tile kernels with the SIMD gemm against the same kernels with their plain JavaScript
// loops (the SIMD module hidden from them), on views into larger column-major buffers and on
// transposed views: equal within 1e-12·(1 + |x|).
const SIMD_KEY = Symbol.for('dtask.array.simdKernels.v1');

type Tile = { data: Float64Array; shape: number[]; strides: number[]; offset: number };

let seed = 5;
const rand = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};

function tile(rows: number, cols: number, transposed: boolean): Tile {
  const ld = (transposed ? cols : rows) + 3;
  const data = new Float64Array(4 + ld * (transposed ? rows : cols)).map(rand);
  return { data, shape: [rows, cols], strides: transposed ? [ld, 1] : [1, ld], offset: 4 };
}

const copy = (t: Tile): Tile => ({ ...t, data: t.data.slice() });

/** Runs `f` on copies of `tiles` with the SIMD kernels and with plain JavaScript; both results. */
function both(tiles: Tile[], f: (...t: Tile[]) => void): [Tile[], Tile[]] {
  const g = globalThis as Record<symbol, unknown>;
  const simd = tiles.map(copy);
  f(...simd);
  const saved = g[SIMD_KEY];
  g[SIMD_KEY] = null;
  const js = tiles.map(copy);
  try {
    f(...js);
  } finally {
    g[SIMD_KEY] = saved;
  }
  return [simd, js];
}

function expectSame(a: Tile[], b: Tile[]): void {
  let worst = 0;
  a.forEach((t, k) => {
    t.data.forEach((v, i) => {
      worst = Math.max(worst, Math.abs(v - b[k].data[i]) / (1 + Math.abs(b[k].data[i])));
    });
  });
  expect(worst).toBeLessThanOrEqual(1e-12);
}

describe('QR tiles: SIMD and plain JavaScript agree', () => {
  for (const transposed of [false, true]) {
    const how = transposed ? 'transposed views' : 'views';
    it(`geqrt and larfb on ${how}`, () => {
      for (const [m, t] of [
        [1, 1],
        [9, 4],
        [70, 40],
        [130, 64],
      ]) {
        const panel = tile(m, t, transposed);
        const tm = tile(t, t, !transposed);
        const [simd, js] = both([panel, tm], (a, b) => geqrt(a, b));
        expectSame(simd, js);
        // T is upper triangular with τ ∈ [1, 2] (or 0) on its diagonal
        for (let j = 0; j < t; j++) {
          const at = (i: number) => simd[1].data[tm.offset + i * tm.strides[0] + j * tm.strides[1]];
          expect(at(j) === 0 || (at(j) >= 1 && at(j) <= 2)).toBe(true);
          for (let i = j + 1; i < t; i++) expect(at(i)).toBe(0);
        }
        for (const transpose of [false, true]) {
          const c = tile(m, 7, !transposed);
          const [c1, c2] = both([simd[0], simd[1], c], (v, tt, cc) => larfb(v, tt, cc, transpose));
          expectSame(c1, c2);
        }
      }
    });
  }
});

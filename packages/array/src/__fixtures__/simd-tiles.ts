// Tiles for tests of the tile kernels: views into larger column-major buffers (plain or
// transposed), and a runner that applies a kernel with the SIMD module and without it.
import { expect } from 'vitest';

const SIMD_KEY = Symbol.for('dtask.array.simdKernels.v1');

/** A strided column-major view, as the tile kernels take it. */
export type Tile = { data: Float64Array; shape: number[]; strides: number[]; offset: number };

let seed = 5;
const rand = () => {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
};

/** A `rows × cols` view of random values inside a larger buffer, transposed or not. */
export function tile(rows: number, cols: number, transposed: boolean): Tile {
  const ld = (transposed ? cols : rows) + 3;
  const data = new Float64Array(4 + ld * (transposed ? rows : cols)).map(rand);
  return { data, shape: [rows, cols], strides: transposed ? [ld, 1] : [1, ld], offset: 4 };
}

const copy = (t: Tile): Tile => ({ ...t, data: t.data.slice() });

/** Runs `f` on copies of `tiles` with the SIMD kernels and with plain JavaScript; both results. */
export function both(tiles: Tile[], f: (...t: Tile[]) => void): [Tile[], Tile[]] {
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

/** Both runs' tiles equal within 1e-12·(1 + |x|). */
export function expectSame(a: Tile[], b: Tile[]): void {
  let worst = 0;
  a.forEach((t, k) => {
    t.data.forEach((v, i) => {
      worst = Math.max(worst, Math.abs(v - b[k].data[i]) / (1 + Math.abs(b[k].data[i])));
    });
  });
  expect(worst).toBeLessThanOrEqual(1e-12);
}

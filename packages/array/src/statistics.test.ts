import { expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { Blocks, distribute, extrema, prod, std, variance } from './index.js';

/** Folds the column-major m×n `x` along `dim` (null: all) with `f` over each line's values. */
function along(
  x: Float64Array,
  m: number,
  n: number,
  dim: 0 | 1 | null,
  f: (v: number[]) => number,
): number[] {
  if (dim === null) return [f(Array.from(x))];
  const out: number[] = [];
  for (let k = 0; k < (dim === 0 ? n : m); k++) {
    const v: number[] = [];
    for (let l = 0; l < (dim === 0 ? m : n); l++) v.push(dim === 0 ? x[l + k * m] : x[k + l * m]);
    out.push(f(v));
  }
  return out;
}
const mean = (v: number[]) => v.reduce((a, b) => a + b, 0) / v.length;
const plainVar = (corrected: boolean) => (v: number[]) => {
  const m = mean(v);
  return v.reduce((a, x) => a + (x - m) ** 2, 0) / (v.length - (corrected ? 1 : 0));
};

const SHAPES: [number, number, number, number][] = [
  [100, 100, 10, 10], // Dagger's
  [37, 23, 8, 6],
  [23, 29, 23, 7],
];

describeOnRigs('on %s', (rig) => {
  it('prod', async () => {
    let seed = 1;
    for (const [m, n, bm, bn] of SHAPES) {
      // Near 1, so that the product of thousands stays finite and meaningful.
      const x = random(m * n, seed++).map((v) => 1 + v / 50);
      const A = distribute(x, [m, n], new Blocks(bm, bn), { context: rig.context });
      const p = (v: number[]) => v.reduce((a, b) => a * b, 1);
      const whole = await prod(A);
      expect(Math.abs(whole - p(Array.from(x)))).toBeLessThan(1e-9 * Math.abs(whole));
      for (const dim of [0, 1] as const) {
        expectClose((await prod(A, { dims: dim }).collect()).data, along(x, m, n, dim, p), 1e-12);
      }
    }
  });

  it('extrema', async () => {
    let seed = 10;
    for (const [m, n, bm, bn] of SHAPES) {
      const x = random(m * n, seed++);
      const A = distribute(x, [m, n], new Blocks(bm, bn), { context: rig.context });
      const lo = (v: number[]) => Math.min(...v);
      const hi = (v: number[]) => Math.max(...v);
      expect(await extrema(A)).toEqual([lo(Array.from(x)), hi(Array.from(x))]);
      for (const dim of [0, 1] as const) {
        const [mins, maxs] = extrema(A, { dims: [dim] });
        expect(Array.from((await mins.collect()).data)).toEqual(along(x, m, n, dim, lo));
        expect(Array.from((await maxs.collect()).data)).toEqual(along(x, m, n, dim, hi));
      }
    }
  });

  it('var', async () => {
    let seed = 20;
    for (const [m, n, bm, bn] of SHAPES) {
      const x = random(m * n, seed++);
      const A = distribute(x, [m, n], new Blocks(bm, bn), { context: rig.context });
      for (const corrected of [true, false]) {
        const f = plainVar(corrected);
        expect(Math.abs((await variance(A, { corrected })) - f(Array.from(x)))).toBeLessThan(1e-12);
        for (const dim of [0, 1] as const) {
          const got = await variance(A, { dims: dim, corrected }).collect();
          expect(got.shape).toEqual(dim === 0 ? [1, n] : [m, 1]);
          expectClose(got.data, along(x, m, n, dim, f), 1e-12);
        }
      }
    }
  });

  it('std', async () => {
    let seed = 30;
    for (const [m, n, bm, bn] of SHAPES) {
      const x = random(m * n, seed++);
      const A = distribute(x, [m, n], new Blocks(bm, bn), {
        context: rig.context,
        dtype: 'float32',
      });
      const x32 = Float64Array.from(new Float32Array(x));
      const f = (v: number[]) => Math.sqrt(plainVar(true)(v));
      expect(Math.abs((await std(A)) - f(Array.from(x32)))).toBeLessThan(1e-9);
      for (const dim of [0, 1] as const) {
        expectClose((await std(A, { dims: [dim] }).collect()).data, along(x32, m, n, dim, f), 1e-9);
      }
    }
  });
});

// Dagger's in-place testsets, ported: matmul.jl's in-place GEMM and GEMV (`mul!`), cholesky.jl's
// `cholesky!`, random.jl's `rand!` and `randn!`, allocation.jl's `undef` and `copy/similar`
// (Float64 and Float32), against plain single-threaded references on random inputs, odd sizes
// and several blockings, on 2 real worker threads and on 2 real worker processes (those run the
// built dist: build first).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  choleskyPlain,
  expectClose,
  expectEvery,
  matmul,
  random,
  spd,
  transpose,
} from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import {
  Blocks,
  choleskyInPlace,
  DArray,
  distribute,
  mulInto,
  randInto,
  randnInto,
  similar,
} from './index.js';

describeOnRigs(
  'on %s',
  (rig) => {
    it('matmul.jl: GEMM and GEMV in place (mul!), with α and β, into other blockings and views', async () => {
      for (const [m, k, p, q] of [
        [12, 12, 6, 12],
        [12, 6, 12, 3],
        [37, 23, 8, 5],
      ]) {
        const a = random(m * k, m + k);
        const b = random(k * m, m * k);
        const da = distribute(a, [m, k], new Blocks(p, q), { context: rig.context });
        const db = distribute(b, [k, m], new Blocks(q, p), { context: rig.context });
        const dc = DArray.zeros([m, m], new Blocks(p, p), { context: rig.context });
        expect(mulInto(dc, da, db)).toBe(dc);
        const ab = matmul(a, b, m, k, m);
        expectClose((await dc.collect()).data, ab);
        // C ← 2·A·B − C, into a C blocked otherwise
        const c0 = random(m * m, 9);
        const dc2 = distribute(c0, [m, m], new Blocks(5, 7), { context: rig.context });
        mulInto(dc2, da, db, 2, -1);
        expectClose(
          (await dc2.collect()).data,
          ab.map((v, i) => 2 * v - c0[i]),
        );
        // transA: A'·A into a C in place
        const dct = DArray.zeros([k, k], new Blocks(q, q), { context: rig.context });
        mulInto(dct, da.transpose(), da.reblock(new Blocks(p, q)));
        expectClose((await dct.collect()).data, matmul(transpose(a, m, k), a, k, m, k));
        // GEMV: y ← A·x, y a DArray vector
        const x = random(k, 4);
        const dy = DArray.zeros([m], new Blocks(p), { context: rig.context });
        mulInto(dy, da, distribute(x, [k], new Blocks(q), { context: rig.context }));
        expectClose((await dy.collect()).data, matmul(a, x, m, k, 1));
      }
      // into a view: the top-left 4×4 of a 6×6 zeros
      const whole = DArray.zeros([6, 6], new Blocks(3, 3), { context: rig.context });
      const a = random(16, 3);
      const da = distribute(a, [4, 4], new Blocks(2, 2), { context: rig.context });
      mulInto(whole.view([0, 4], [0, 4]), da, da);
      const got = (await whole.collect()).data;
      const want = matmul(a, a, 4, 4, 4);
      for (let j = 0; j < 6; j++)
        for (let i = 0; i < 6; i++) {
          expect(got[i + j * 6]).toBeCloseTo(i < 4 && j < 4 ? want[i + j * 4] : 0, 12);
        }
    }, 120_000);

    it("cholesky.jl: Float64 and Float32 in place (cholesky!): L, and U = Lᵀ over a's upper triangle", async () => {
      for (const [n, bs, dtype] of [
        [128, 32, 'float64'],
        [37, 8, 'float64'],
        [30, 7, 'float32'],
      ] as const) {
        const a = spd(n, n);
        const da = distribute(a, [n, n], new Blocks(bs, bs), { context: rig.context, dtype });
        const before = da.slice(':', ':');
        const want = choleskyPlain(a, n);
        const tol = dtype === 'float32' ? 1e-3 : 1e-9;
        const l = await choleskyInPlace(da);
        expectClose((await l.collect()).data, want, tol);
        const got = (await da.collect()).data;
        expect(da.dtype).toBe(dtype);
        expectEvery(
          n,
          n,
          (i, j) => {
            const v = i <= j ? want[j + i * n] : a[i + j * n];
            return Math.abs(got[i + j * n] - v) <= tol * (1 + Math.abs(v));
          },
          'within tol·(1 + |want|) of U = Lᵀ above, the input below',
        );
        // an array sliced from it before keeps the old values
        expectClose(
          (await before.collect()).data,
          Float64Array.from(a, (v) => (dtype === 'float32' ? Math.fround(v) : v)),
          0,
        );
      }
    }, 120_000);

    it('random.jl: rand! and randn!', async () => {
      const x = DArray.zeros([40, 40], new Blocks(10, 10), { context: rig.context });
      expect(randInto(x)).toBe(x);
      const v = (await x.collect()).data;
      expect(v.every((e) => e >= 0 && e <= 1)).toBe(true);
      expect(await x.sum()).toBeGreaterThan(0.01);
      const again = (await randInto(x).collect()).data; // fresh numbers each call
      expect(again).not.toEqual(v);
      expect((await randInto(x, { seed: 5 }).collect()).data).toEqual(
        (await randInto(x, { seed: 5 }).collect()).data,
      );
      randnInto(x);
      const n = (await x.collect()).data;
      expect(await x.sum()).toBeLessThanOrEqual(2 * 1600);
      expect(n.every((e) => e !== 0)).toBe(true);
      expect(n.some((e) => e < 0)).toBe(true);
      const ints = DArray.zeros([7, 5], new Blocks(3, 2), { context: rig.context, dtype: 'int32' });
      const r = (await randInto(ints).collect()).data;
      expect(r.every((e) => Number.isInteger(e) && e >= 0 && e < 100)).toBe(true);
    }, 120_000);

    it('allocation.jl: undef and copy/similar', async () => {
      for (const dtype of ['float32', 'float64', 'int32'] as const)
        for (const shape of [[], [100], [100, 100], [30, 20, 10]]) {
          const da = DArray.undef(shape, new Blocks(...shape.map(() => 10)), {
            context: rig.context,
            dtype,
          });
          const got = await da.collect();
          expect(da.dtype).toBe(dtype);
          expect(got.shape).toEqual(shape);
          expect(da.blocks.sizes).toEqual(shape.map(() => 10));
        }
      const x1 = DArray.ones([100, 100], new Blocks(10, 10), { context: rig.context });
      const x3 = similar(x1);
      expect(x3.shape).toEqual([100, 100]);
      expect(x3.blocks.sizes).toEqual([10, 10]);
      expect((await x3.collect()).data).not.toEqual((await x1.collect()).data);
      const x4 = similar(x1, { dtype: 'float32', shape: [5, 7] });
      expect([x4.dtype, x4.shape, x4.blocks.sizes]).toEqual(['float32', [5, 7], [5, 7]]);
    }, 120_000);
  },
  { closeTimeoutMs: 120_000 },
);

describe('in-place misuse', () => {
  it('wrong shapes, non-DArrays and dtypes that cannot hold the result are ArgumentErrors', async () => {
    const ctx = await rigForTest();
    const a = DArray.rand([6, 4], new Blocks(3, 2), { context: ctx });
    const b = DArray.rand([4, 5], new Blocks(2, 5), { context: ctx });
    expect(() => mulInto(DArray.zeros([6, 4], new Blocks(3, 2), { context: ctx }), a, b)).toThrow(
      /c must have a·b's shape \[6, 5\]/,
    );
    expect(() => mulInto([] as never, a, b)).toThrow(ArgumentError);
    expect(() => mulInto(a, a, b, 'x' as never)).toThrow(/alpha and beta must be numbers/);
    const ints = DArray.ones([4, 4], new Blocks(2, 2), { context: ctx, dtype: 'int32' });
    await expect(choleskyInPlace(ints)).rejects.toThrow(/float64 or float32/);
    expect(() => randnInto(ints)).toThrow(/float64 or float32/);
    expect(() => randInto({} as never)).toThrow(ArgumentError);
    expect(() => similar(a, { dtype: 'int64' as never })).toThrow(ArgumentError);
  });
});

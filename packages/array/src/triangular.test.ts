// Dagger's test/array/linalg/core.jl "isapprox" (`isapprox` of `UpperTriangular` and
// `LowerTriangular` of `DArray(A, Blocks(16, 16))`) ported, and `triu`/`tril`/`isapprox` against
// plain loops on random inputs, odd sizes, several blockings and diagonal offsets, and dtypes,
// on 2 real worker threads and on 2 real worker processes (those run the built dist).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs, threadsRig } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute, isapprox, qr, tril, triu } from './index.js';

/** The plain triangle of a column-major `m × n` matrix: column − row ≥ k (upper) or ≤ k. */
function plainTriangle(x: ArrayLike<number>, m: number, n: number, k: number, upper: boolean) {
  return Float64Array.from({ length: m * n }, (_, at) => {
    const [i, j] = [at % m, Math.floor(at / m)];
    return (upper ? j - i >= k : j - i <= k) ? x[at] : 0;
  });
}

describeOnRigs('on %s', (rig) => {
  it('core.jl: isapprox (UpperTriangular and LowerTriangular of DArray(A, Blocks(16, 16)))', async () => {
    const { context } = rig;
    const a = random(16 * 16, 1);
    const u1 = triu(distribute(a, [16, 16], new Blocks(16, 16), { context }));
    const u2 = triu(distribute(a, [16, 16], new Blocks(16, 16), { context }));
    expect(await isapprox(u1, u2)).toBe(true);
    const l1 = tril(distribute(a, [16, 16], new Blocks(16, 16), { context }));
    const l2 = tril(distribute(a, [16, 16], new Blocks(16, 16), { context }));
    expect(await isapprox(l1, l2)).toBe(true);
    // the triangles differ from each other
    expect(await isapprox(u1, l1)).toBe(false);
  }, 60_000);

  it('triu and tril equal plain loops on odd sizes, blockings and diagonal offsets', async () => {
    const { context } = rig;
    for (const [m, n, bs] of [
      [37, 23, [8, 6]],
      [23, 37, [7, 9]],
      [16, 16, [5, 16]],
      [9, 1, [4, 1]],
    ] as [number, number, [number, number]][]) {
      const a = random(m * n, m + n);
      const da = distribute(a, [m, n], new Blocks(...bs), { context });
      for (const k of [0, 1, -1, 3, -4, 40, -40]) {
        const up = triu(da, k);
        expect(up.blocks.sizes).toEqual(bs);
        expect((await up.collect()).data).toEqual(plainTriangle(a, m, n, k, true));
        expect((await tril(da, k).collect()).data).toEqual(plainTriangle(a, m, n, k, false));
      }
      // A = triu(A) + tril(A, −1)
      expect(await isapprox(triu(da).add(tril(da, -1)), da, { rtol: 0 })).toBe(true);
    }
    // int32 and float32 keep their dtype
    const ints = distribute(
      Int32Array.from({ length: 20 }, (_, i) => i + 1),
      [5, 4],
      new Blocks(2, 3),
      {
        context,
      },
    );
    const t = triu(ints);
    expect(t.dtype).toBe('int32');
    expect(Array.from((await t.collect()).data)).toEqual(
      Array.from(
        plainTriangle(
          Float64Array.from({ length: 20 }, (_, i) => i + 1),
          5,
          4,
          0,
          true,
        ),
      ),
    );
  }, 120_000);

  it("isapprox: Julia's tolerances, other blockings, dtypes, and qr.jl's triu(R) ≈ R", async () => {
    const { context } = rig;
    const a = random(30 * 20, 4);
    const da = distribute(a, [30, 20], new Blocks(7, 6), { context });
    const near = Float64Array.from(a, (x, i) => (i === 17 ? x + 1e-10 : x));
    const db = distribute(near, [30, 20], new Blocks(11, 4), { context });
    expect(await isapprox(da, db)).toBe(true); // rtol √eps ≈ 1.5e-8
    expect(await isapprox(da, db, { rtol: 1e-14 })).toBe(false);
    expect(await isapprox(da, db, { atol: 1e-9 })).toBe(true);
    const far = Float64Array.from(a, (x, i) => (i === 3 ? x + 1e-3 : x));
    expect(await isapprox(da, distribute(far, [30, 20], new Blocks(7, 6), { context }))).toBe(
      false,
    );
    const nan = Float64Array.from(a, (x, i) => (i === 5 ? Number.NaN : x));
    expect(await isapprox(da, distribute(nan, [30, 20], new Blocks(7, 6), { context }))).toBe(
      false,
    );
    // float32: rtol √eps(Float32) ≈ 3.5e-4
    const f32 = distribute(a, [30, 20], new Blocks(7, 6), { context, dtype: 'float32' });
    expect(await isapprox(f32, da)).toBe(true);
    // integers: exact unless atol (Julia's rtol for integers is 0)
    const i1 = DArray.fill([6, 6], new Blocks(4, 4), 3, { context, dtype: 'int32' });
    const i2 = DArray.fill([6, 6], new Blocks(3, 3), 3, { context, dtype: 'int32' });
    expect(await isapprox(i1, i2)).toBe(true);
    expect(await isapprox(i1, i2.add(1))).toBe(false);
    expect(await isapprox(i1, i2.add(1), { atol: 6 })).toBe(true);
    // qr.jl: triu(R) ≈ R
    const f = await qr(da);
    expect(await isapprox(triu(f.R), f.R)).toBe(true);
    expect(await isapprox(tril(f.R), f.R)).toBe(false);
  }, 120_000);
});

describe('triangular misuse', () => {
  it('a non-matrix, a fractional k, shapes that differ and negative tolerances are ArgumentErrors', async () => {
    await using ctx = await threadsRig();
    const v = DArray.rand([5], new Blocks(2), { context: ctx });
    expect(() => triu(v)).toThrow(/2-D DArray/);
    expect(() => tril({} as never)).toThrow(ArgumentError);
    const m = DArray.rand([4, 4], new Blocks(2, 2), { context: ctx });
    expect(() => triu(m, 0.5)).toThrow(/integer/);
    await expect(
      isapprox(m, DArray.rand([4, 5], new Blocks(2, 2), { context: ctx })),
    ).rejects.toThrow(/one shape/);
    await expect(isapprox(m, [1] as never)).rejects.toHaveProperty('code', ArgumentError.code);
    await expect(isapprox(m, m, { rtol: -1 })).rejects.toThrow(/≥ 0/);
  }, 30_000);
});

// Dagger's in-place factorizations, ported: lu.jl's "In-place" (`lu!`) and qr.jl's "In-place
// qr!" (Float64): the factorization as the allocating one gives it, the array overwritten with
// the packed factors (checked against a plain unblocked LU and QR), on odd sizes and several
// blockings, on 2 real worker threads and on 2 real worker processes (those run the built
// dist: build first).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { luRectPlain, opnorm1, productMinus } from './__fixtures__/linalg-reference.js';
import { expectClose, expectEvery, random } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute, luInPlace, qrInPlace, solve } from './index.js';

const EPS = 2 ** -52;

describeOnRigs('on %s', (rig) => {
  it('lu.jl: In-place (lu!): the packed L\\U over A, and solving with the result', async () => {
    for (const [m, n, bs] of [
      [128, 128, [64, 64]],
      [128, 128, [64, 32]],
      [37, 37, [8, 5]],
      [23, 41, [6, 9]],
    ] as const) {
      const a = random(m * n, m + 2 * n);
      const da = distribute(a, [m, n], new Blocks(bs[0], bs[1]), { context: rig.context });
      const f = await luInPlace(da);
      expect(da.blocks.sizes).toEqual(bs);
      const want = luRectPlain(a, m, n);
      expect(Array.from(f.p)).toEqual(Array.from(want.p));
      const k = Math.min(m, n);
      const packed = (await da.collect()).data;
      expectEvery(
        m,
        n,
        (i, j) => {
          if (i > j && j >= k) return true;
          const expected = i <= j ? want.u[Math.min(i, k - 1) + j * k] : want.l[i + j * m];
          return Math.abs(packed[i + j * m] - expected) < 1e-10;
        },
        'within 1e-10 of the plain U above the diagonal, L below',
      );
      if (m === n) {
        // the factorization still solves the original system (A was overwritten, F kept)
        const b = random(n, 3);
        const x = await f.solve(b);
        const orig = distribute(a, [n, n], new Blocks(bs[0], bs[1]), { context: rig.context });
        expectClose(x, await solve(orig, b), 1e-9);
      }
    }
  }, 120_000);

  it('qr.jl: In-place qr!: Float64 (R over the upper triangle; Q·R = A)', async () => {
    for (const [m, n, bs] of [
      [128, 128, [32, 32]],
      [37, 23, [8, 6]],
      [19, 30, [5, 7]],
    ] as const) {
      const a = random(m * n, 7 * m + n);
      const da = distribute(a, [m, n], new Blocks(bs[0], bs[1]), { context: rig.context });
      const f = await qrInPlace(da);
      const k = Math.min(m, n);
      const packed = (await da.collect()).data;
      const r = new Float64Array(k * n);
      for (let j = 0; j < n; j++)
        for (let i = 0; i <= Math.min(j, k - 1); i++) r[i + j * k] = packed[i + j * m];
      expectClose(r, (await f.R.collect()).data, 0);
      const q = (await f.Q.collect()).data;
      const res =
        opnorm1(productMinus(q, r, a, m, k, n), m, n) / (opnorm1(a, m, n) * Math.max(m, n) * EPS);
      expect(res).toBeLessThan(2);
    }
  }, 120_000);
});

describe('in-place factorization misuse', () => {
  it('an integer array, a vector or a non-DArray is an ArgumentError', async () => {
    const ctx = await rigForTest();
    const ints = DArray.ones([4, 4], new Blocks(2, 2), { context: ctx, dtype: 'int32' });
    await expect(luInPlace(ints)).rejects.toThrow(
      /float64, float32, complex128 or complex64.*use lu\(a\)/,
    );
    await expect(qrInPlace(ints)).rejects.toThrow(/use qr\(a\)/);
    await expect(luInPlace(DArray.ones([4], new Blocks(2), { context: ctx }))).rejects.toThrow(
      /2-D DArray/,
    );
    await expect(qrInPlace('a' as never)).rejects.toHaveProperty('code', ArgumentError.code);
  }, 30_000);
});

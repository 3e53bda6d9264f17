// Dagger's test/array/linalg/cholesky.jl, ported (Float64 and Float32 out of place; the in-place
// half lives in in-place.test.ts): `issymmetric`/`ishermitian` of a random and of a symmetric
// positive definite array, `L` and `U = Lᵀ` against a plain unblocked Cholesky, the input left
// unchanged, on odd sizes and several blockings, on 2 real worker threads and on 2 real worker
// processes (those run the built dist: build first). Dagger's "Non-PosDef" case is
// `@test_broken` there (it should throw Julia's `PosDefException`); here the factorization
// rejects with `PosDefError` (code `DTASK_POSDEF`, `info` the failing leading minor's order).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { choleskyPlain, expectClose, spd, transpose } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import {
  Blocks,
  cholesky,
  choleskyInPlace,
  DArray,
  distribute,
  ishermitian,
  issymmetric,
  PosDefError,
} from './index.js';

describeOnRigs('on %s', (rig) => {
  for (const dtype of ['float64', 'float32'] as const) {
    it(`cholesky.jl: ${dtype === 'float64' ? 'Float64' : 'Float32'}`, async () => {
      const { context } = rig;
      // D = rand(Blocks(4, 4), T, 32, 32): neither symmetric nor hermitian
      const d = DArray.rand([32, 32], new Blocks(4, 4), { context, dtype, seed: 5 });
      expect(await issymmetric(d)).toBe(false);
      expect(await ishermitian(d)).toBe(false);
      for (const [n, bs] of [
        [128, [32, 32]],
        [37, [8, 5]],
      ] as const) {
        const a = spd(n, n);
        const stored = dtype === 'float32' ? Float64Array.from(Float32Array.from(a)) : a;
        // a symmetric matrix stays symmetric after rounding to float32
        const da = distribute(stored, [n, n], new Blocks(bs[0], bs[1]), { context, dtype });
        expect(await issymmetric(da)).toBe(true);
        expect(await ishermitian(da)).toBe(true);
        const l = await cholesky(da);
        const want = choleskyPlain(stored, n);
        const got = (await l.collect()).data;
        expectClose(got, want, 1e-10);
        expectClose((await l.transpose().collect()).data, transpose(want, n, n), 1e-10);
        expectClose((await da.collect()).data, stored, 0); // cholesky did not modify DA
      }
      // Non-PosDef: A[1, 1] = -100
      const bad = spd(16, 3);
      bad[0] = -100;
      const dbad = distribute(bad, [16, 16], new Blocks(4, 4), { context, dtype });
      expect(await issymmetric(dbad)).toBe(true);
      const thrown = await cholesky(dbad).catch((e: unknown) => e);
      expect(thrown).toBeInstanceOf(PosDefError);
      expect(thrown).toMatchObject({ code: 'DTASK_POSDEF', info: 1, name: 'PosDefError' });
      expect((thrown as Error).message).toMatch(
        /not positive definite: its leading minor of order 1 is not positive; factor a symmetric positive definite matrix/,
      );
      // A failing minor in a later tile: its order counts from the whole matrix's first row.
      const late = spd(16, 4);
      late[9 + 9 * 16] = -1e6;
      const dlate = distribute(late, [16, 16], new Blocks(4, 4), { context, dtype });
      await expect(cholesky(dlate)).rejects.toMatchObject({ code: PosDefError.code, info: 10 });
      await expect(choleskyInPlace(dlate)).rejects.toBeInstanceOf(PosDefError);
    }, 120_000);
  }
});

describe('issymmetric misuse', () => {
  it('a vector or a non-DArray is an ArgumentError; a rectangular matrix is not symmetric', async () => {
    const ctx = await rigForTest();
    await expect(issymmetric(DArray.rand([4], new Blocks(2), { context: ctx }))).rejects.toThrow(
      /2-D DArray/,
    );
    await expect(ishermitian('a' as never)).rejects.toHaveProperty('code', ArgumentError.code);
    expect(await issymmetric(DArray.zeros([3, 4], new Blocks(2, 2), { context: ctx }))).toBe(false);
    // a non-square blocking of a symmetric matrix compares across re-blocked transposes
    const s = spd(9, 2);
    expect(await issymmetric(distribute(s, [9, 9], new Blocks(4, 2), { context: ctx }))).toBe(true);
    s[1] += 1;
    expect(await issymmetric(distribute(s, [9, 9], new Blocks(4, 2), { context: ctx }))).toBe(
      false,
    );
  }, 30_000);
});

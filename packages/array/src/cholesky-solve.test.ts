// Dagger's test/array/linalg/solve.jl, ported (Float64): `ldiv!` with an LU and with a Cholesky
// factor, on DMatrix, DVector and plain Vector right-hand sides, in Dagger's blockings (N = 128
// in 128² and 64×128 blocks) and odd ones, against plain single-threaded elimination, on 2 real
// worker threads and on 2 real worker processes (those run the built dist: build first).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { solvePlain } from './__fixtures__/linalg-reference.js';
import { expectClose, random, spd } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, cholesky, choleskySolve, DArray, distribute, ldivInto, lu } from './index.js';

/** The plain solves, once per input: both rigs (and both 128 blockings) check the same. */
const once = referenceCache();

describeOnRigs('on %s', (rig) => {
  const cases = [
    [128, 128, 128],
    [128, 64, 128],
    [41, 9, 14],
  ] as const;

  it('solve.jl: Float64 LU decomposition with ldiv! on DMatrix, DVector and plain Vector', async () => {
    const { context } = rig;
    for (const [n, bi, bj] of cases) {
      const a = random(n * n, n + 11);
      for (let i = 0; i < n; i++) a[i + i * n] += 0.5;
      const f = await lu(distribute(a, [n, n], new Blocks(bi, bj), { context }));
      const bm = random(n * n, 4);
      const dbm = distribute(bm, [n, n], new Blocks(bi, bj), { context });
      expect(await ldivInto(f, dbm)).toBe(dbm);
      expect(dbm.blocks.sizes).toEqual([bi, bj]);
      expectClose(
        (await dbm.collect()).data,
        once(`lu ${n} bm`, () => solvePlain(a, n, bm)),
        1e-8,
      );
      const bv = random(n, 5);
      const wantV = once(`lu ${n} bv`, () => solvePlain(a, n, bv));
      const dbv = distribute(bv, [n], new Blocks(bi), { context });
      await ldivInto(f, dbv);
      expectClose((await dbv.collect()).data, wantV, 1e-10);
      const plain = Array.from(bv);
      expect(await ldivInto(f, plain)).toBe(plain);
      expectClose(plain, wantV, 1e-10);
    }
  }, 120_000);

  it('solve.jl: Float64 Cholesky decomposition with ldiv! on DMatrix and DVector (and cholesky(A) \\ b)', async () => {
    const { context } = rig;
    for (const [n, bi, bj] of cases) {
      const a = once(`spd ${n} ${n + 3}`, () => spd(n, n + 3));
      const l = await cholesky(distribute(a, [n, n], new Blocks(bi, bj), { context }));
      const bm = random(n * n, 6);
      const dbm = distribute(bm, [n, n], new Blocks(bi, bj), { context });
      expect(await ldivInto(l, dbm)).toBe(dbm);
      const wantM = once(`spd ${n} bm`, () => solvePlain(a, n, bm));
      expectClose((await dbm.collect()).data, wantM, 1e-10);
      const bv = random(n, 7);
      const wantV = once(`spd ${n} bv`, () => solvePlain(a, n, bv));
      const dbv = distribute(bv, [n], new Blocks(bi), { context });
      await ldivInto(l, dbv);
      expectClose((await dbv.collect()).data, wantV, 1e-10);
      // not in place: a DArray back with b's blocks, or a Float64Array for a plain b
      const x = await choleskySolve(l, distribute(bm, [n, n], new Blocks(bj, bi), { context }));
      expect(x.blocks.sizes).toEqual([bj, bi]);
      expectClose((await x.collect()).data, wantM, 1e-10);
      const xv = await choleskySolve(l, bv);
      expect(xv).toBeInstanceOf(Float64Array);
      expectClose(xv, wantV, 1e-10);
    }
  }, 120_000);
});

describe('choleskySolve and ldivInto misuse', () => {
  it('a factor that is not square, a b that does not fit, an f that is no factor are ArgumentErrors', async () => {
    const ctx = await rigForTest();
    const l = await cholesky(distribute(spd(6, 1), [6, 6], new Blocks(3, 3), { context: ctx }));
    await expect(choleskySolve(l, [1, 2, 3])).rejects.toThrow(/array of 6 numbers/);
    await expect(
      choleskySolve(l, DArray.rand([5, 2], new Blocks(5, 2), { context: ctx })),
    ).rejects.toThrow(/must have 6 rows/);
    const rect = DArray.rand([6, 4], new Blocks(3, 2), { context: ctx });
    await expect(choleskySolve(rect, [1, 2, 3, 4, 5, 6])).rejects.toThrow(/square factor/);
    await expect(ldivInto({} as never, [1])).rejects.toHaveProperty('code', ArgumentError.code);
    await expect(ldivInto(l, 'b' as never)).rejects.toThrow(/Float64Array or a number array/);
  }, 30_000);
});

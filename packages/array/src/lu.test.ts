// Dagger's test/array/linalg/lu.jl and solve.jl (the LU part), ported: the factors, the
// permutation, solving and the determinant against a plain single-threaded LU on random
// inputs, odd sizes and several blockings, on 2 real worker threads and on 2 real worker
// processes (those run the built dist: build first).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { detPlain, luPlain, luRectPlain, solvePlain } from './__fixtures__/linalg-reference.js';
import { expectClose, expectEntries, matmul, random } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, DArray, det, distribute, lu, SingularError, solve } from './index.js';

/** The plain LUs, solves and determinants, once per input: both rigs (and some blockings) check the same. */
const once = referenceCache();

/** A random `n × n` matrix with a heavier diagonal (well conditioned, pivots still move). */
function matrix(n: number, seed: number): Float64Array {
  const a = random(n * n, seed);
  for (let i = 0; i < n; i++) a[i + i * n] += 0.3;
  return a;
}

describeOnRigs('on %s', (rig) => {
  for (const pivot of [false, true]) {
    it(`lu.jl: Float64 with ${pivot ? 'RowMaximum()' : 'NoPivot()'}`, async () => {
      // Dagger's 128² in 64² and 64×32 blocks, and odd sides with uneven blocks and tiles.
      const cases: [number, number[], number | undefined][] = [
        [128, [64, 64], undefined],
        [128, [64, 32], undefined],
        [37, [8, 8], undefined],
        [50, [16, 7], undefined],
        [45, [45, 45], 13],
        [33, [10, 12], 40],
      ];
      for (const [n, bs, tile] of cases) {
        const input = `matrix ${n} ${n + bs[0]}`;
        const a = matrix(n, n + bs[0]);
        const da = distribute(a, [n, n], new Blocks(bs[0], bs[1]), { context: rig.context });
        const f = await lu(da, { pivot, ...(tile ? { tile } : {}) });
        const want = once(`lu ${input} ${pivot}`, () => luPlain(a, n, pivot));
        expect(f.info).toBe(0);
        expect(Array.from(f.p)).toEqual(Array.from(want.p));
        expect(f.L.blocks.sizes).toEqual(bs);
        const l = (await f.L.collect()).data;
        const u = (await f.U.collect()).data;
        const tol = pivot ? 1e-10 : 1e-7;
        expectClose(l, want.l, tol);
        expectClose(u, want.u, tol);
        // istril(L), istriu(U), P'P = I with 0/1 entries
        expectEntries(
          n,
          n,
          (i, j) => i < j,
          (i, j) => l[i + j * n],
        );
        expectEntries(
          n,
          n,
          (i, j) => i > j,
          (i, j) => u[i + j * n],
        );
        const pm = (await f.P.collect()).data;
        const rowSums = Array.from({ length: n }, (_, i) => {
          let rowSum = 0;
          for (let j = 0; j < n; j++) rowSum += pm[i + j * n];
          return rowSum;
        });
        expect(rowSums).toEqual(Array(n).fill(1));
        expect(pm.every((v) => v === 0 || v === 1)).toBe(true);
        // lu_DA \ b against B \ b, and lu did not modify DA
        const b = random(n, 7);
        expectClose(
          await f.solve(b),
          once(`solve ${input} b`, () => solvePlain(a, n, b)),
          1e-8,
        );
        expectClose((await da.collect()).data, a, 0);
        const d = once(`det ${input}`, () => detPlain(a, n));
        expect(Math.abs(f.det() - d)).toBeLessThanOrEqual((pivot ? 1e-9 : 1e-6) * Math.abs(d));
      }
    }, 120_000);
  }

  for (const pivot of [false, true]) {
    it(`lu of a rectangular matrix (Julia's lu(A) of m × n) with ${pivot ? 'RowMaximum()' : 'NoPivot()'}`, async () => {
      // tall and wide, odd sizes, blocks and tiles that do and do not divide them
      const cases: [number, number, number[], number | undefined][] = [
        [128, 64, [32, 32], undefined],
        [64, 128, [32, 16], undefined],
        [37, 23, [8, 5], undefined],
        [23, 37, [6, 9], undefined],
        [50, 17, [50, 17], 7],
        [9, 31, [4, 4], 40],
        [1, 5, [1, 2], undefined],
        [6, 1, [4, 1], undefined],
      ];
      for (const [m, n, bs, tile] of cases) {
        const k = Math.min(m, n);
        const a = random(m * n, 3 * m + n);
        const da = distribute(a, [m, n], new Blocks(bs[0], bs[1]), { context: rig.context });
        const f = await lu(da, { pivot, ...(tile ? { tile } : {}) });
        const want = once(`lu random ${m}x${n} ${3 * m + n} ${pivot}`, () =>
          luRectPlain(a, m, n, pivot),
        );
        expect(f.info).toBe(0);
        expect(Array.from(f.p)).toEqual(Array.from(want.p));
        expect(f.L.shape).toEqual([m, k]);
        expect(f.U.shape).toEqual([k, n]);
        const l = (await f.L.collect()).data;
        const u = (await f.U.collect()).data;
        const tol = pivot ? 1e-10 : 1e-6;
        expectClose(l, want.l, tol);
        expectClose(u, want.u, tol);
        // P·A = L·U
        const pm = (await f.P.collect()).data;
        expect(f.P.shape).toEqual([m, m]);
        expectClose(matmul(pm, a, m, m, n), matmul(l, u, m, k, n), tol);
        expect(() => f.det()).toThrow(/not square/);
        await expect(f.solve(random(m, 1))).rejects.toThrow(/not square.*qr\(a\)/);
        expectClose((await da.collect()).data, a, 0);
      }
    }, 120_000);
  }

  it('lu.jl: Singular Values', async () => {
    const ones = DArray.ones([128, 128], new Blocks(64, 64), { context: rig.context });
    const error = await lu(ones).catch((e: unknown) => e);
    expect(SingularError.isInstance(error)).toBe(true);
    expect((error as SingularError).code).toBe('DTASK_SINGULAR');
    expect((error as SingularError).info).toBe(2);
    expect((error as Error).message).toMatch(/check: false/);
    // check=false: the factorization anyway; solving with it is refused; det is 0
    const f = await lu(ones, { check: false });
    expect(f.info).toBe(2);
    await expect(f.solve(new Float64Array(128))).rejects.toThrow(SingularError);
    expect(await det(ones)).toBe(0);
  }, 120_000);

  it('solve.jl: Float64 LU with DMatrix, DVector and plain Vector right-hand sides', async () => {
    for (const [n, bi, bj] of [
      [128, 128, 128],
      [128, 64, 128],
      [41, 9, 14],
    ]) {
      const a = matrix(n, 3 * n);
      const da = distribute(a, [n, n], new Blocks(bi, bj), { context: rig.context });
      const f = await lu(da);
      const bm = random(n * n, 5);
      const dbm = distribute(bm, [n, n], new Blocks(bi, bj), { context: rig.context });
      const wantM = once(`solve matrix ${n} ${3 * n} bm`, () => solvePlain(a, n, bm));
      const xm = await f.solve(dbm);
      expect(xm.blocks.sizes).toEqual([bi, bj]);
      expectClose((await xm.collect()).data, wantM, 1e-8);
      const bv = random(n, 6);
      const wantV = once(`solve matrix ${n} ${3 * n} bv`, () => solvePlain(a, n, bv));
      const xv = await f.solve(distribute(bv, [n], new Blocks(bi), { context: rig.context }));
      expect(xv.shape).toEqual([n]);
      expectClose((await xv.collect()).data, wantV, 1e-8);
      expectClose(await f.solve(Array.from(bv)), wantV, 1e-8);
      // A \ b without keeping the factorization
      expectClose((await (await solve(da, dbm)).collect()).data, wantM, 1e-8);
    }
  }, 120_000);
});

describe('lu misuse', () => {
  it('a non-matrix, an empty one, a bad tile and a b that does not fit are ArgumentErrors', async () => {
    const ctx = await rigForTest();
    const rect = DArray.rand([6, 4], new Blocks(3, 2), { context: ctx });
    await expect(lu(DArray.rand([6], new Blocks(3), { context: ctx }))).rejects.toThrow(
      /2-D DArray; got \[6\]/,
    );
    await expect(lu(DArray.zeros([0, 3], new Blocks(1, 1), { context: ctx }))).rejects.toThrow(
      /empty/,
    );
    await expect(lu(rect, { tile: 0 })).rejects.toHaveProperty('code', ArgumentError.code);
    await expect(det(rect)).rejects.toThrow(/square 2-D DArray.*use qr\(a\)/);
    await expect(solve(rect.transpose(), [1, 2, 3, 4])).rejects.toThrow(/wider than tall/);
    await expect(
      solve(DArray.ones([4, 4], new Blocks(2, 2), { context: ctx }), [1, 2, 3, 4]),
    ).rejects.toThrow(SingularError);
    await expect(lu([1, 2] as never)).rejects.toThrow(/2-D DArray/);
    const sq = DArray.rand([6, 6], new Blocks(3, 3), { context: ctx, seed: 2 });
    await expect(lu(sq, { tile: 0 })).rejects.toThrow(/tile must be a positive integer/);
    await expect(lu(sq, { pivot: 'yes' as never })).rejects.toThrow(/must be booleans/);
    const f = await lu(sq);
    await expect(f.solve([1, 2, 3])).rejects.toThrow(/array of 6 numbers/);
    await expect(f.solve(DArray.rand([5], new Blocks(5), { context: ctx }))).rejects.toThrow(
      /must have 6 rows/,
    );
  }, 30_000);
});

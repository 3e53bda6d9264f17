// Dagger's test/array/linalg/cholesky.jl for T = ComplexF64 and ComplexF32 (out of place) and
// solve.jl's Cholesky part for T = ComplexF64, ported: `ishermitian` of a random and of a
// Hermitian positive definite array, `L` (and `U = Lᴴ`) against a plain unblocked complex
// Cholesky, the input left unchanged, solving with DMatrix, DVector and plain right-hand sides,
// on odd sizes and several blockings and tiles, on 2 real worker threads and on 2 real worker
// processes (those run the built dist: build first). Dagger's "Non-PosDef" case is
// `@test_broken` there; here the factorization rejects with `PosDefError` (Julia's
// `PosDefException`), as the real one does.
import { describe, expect, it } from 'vitest';
import {
  cadjoint,
  ccholeskyPlain,
  csolvePlain,
  hpd,
  maxDiff,
} from './__fixtures__/complex-reference.js';
import { expectEvery, random } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import {
  adjoint,
  Blocks,
  cholesky,
  choleskyInPlace,
  choleskySolve,
  DtypeError,
  distribute,
  ishermitian,
  issymmetric,
  ldivInto,
  PosDefError,
} from './index.js';

/** The plain factors and solves, once per input: both rigs (and some blockings) check the same. */
const once = referenceCache();

describeOnRigs('on %s', (rig) => {
  for (const dtype of ['complex128', 'complex64'] as const) {
    it(`cholesky.jl: ${dtype === 'complex128' ? 'ComplexF64' : 'ComplexF32'}`, async () => {
      const { context } = rig;
      // D = rand(Blocks(4, 4), T, 32, 32): not hermitian
      const d = distribute(random(2 * 32 * 32, 4), [32, 32], new Blocks(4, 4), { context, dtype });
      expect(await ishermitian(d)).toBe(false);
      for (const [n, bs, tile] of [
        [128, [32, 32], undefined],
        [37, [8, 5], undefined],
        [30, [30, 30], 7],
      ] as const) {
        const a = once(`hpd ${n} ${n + bs[0]}`, () => hpd(random, n, n + bs[0]));
        const stored = dtype === 'complex64' ? Float64Array.from(Float32Array.from(a)) : a;
        const da = distribute(stored, [n, n], new Blocks(bs[0], bs[1]), { context, dtype });
        expect(await ishermitian(da)).toBe(true);
        const l = await cholesky(da, tile ? { tile } : {});
        expect(l.dtype).toBe('complex128');
        expect(l.blocks.sizes).toEqual(bs);
        const want = once(`cholesky hpd ${n} ${n + bs[0]} ${dtype}`, () =>
          ccholeskyPlain(stored, n),
        );
        expect(maxDiff((await l.collect()).data, want)).toBeLessThanOrEqual(1e-10);
        // U = L'
        expect(
          maxDiff((await adjoint(l).collect()).data, cadjoint(want, n, n)),
        ).toBeLessThanOrEqual(1e-10);
        expect(maxDiff((await da.collect()).data, stored)).toBe(0); // cholesky did not modify DA
      }
      // Non-PosDef: A[1, 1] = -100
      const bad = hpd(random, 16, 3);
      bad[0] = -100;
      const dbad = distribute(bad, [16, 16], new Blocks(4, 4), { context, dtype });
      expect(await ishermitian(dbad)).toBe(true);
      const e = await cholesky(dbad).catch((x: unknown) => x);
      expect(PosDefError.isInstance(e)).toBe(true);
      expect([(e as PosDefError).code, (e as PosDefError).info]).toEqual(['DTASK_POSDEF', 1]);
      expect((e as Error).message).toMatch(/Hermitian positive definite/);
    }, 120_000);
  }

  it("cholesky.jl: ComplexF64 and ComplexF32 in place (cholesky!): L, and U = Lᴴ over a's upper triangle", async () => {
    const { context } = rig;
    for (const [n, bs, dtype] of [
      [128, 32, 'complex128'],
      [31, 7, 'complex64'],
    ] as const) {
      const a = once(`hpd ${n} ${3 * n}`, () => hpd(random, n, 3 * n));
      const stored = dtype === 'complex64' ? Float64Array.from(Float32Array.from(a)) : a;
      const da = distribute(stored, [n, n], new Blocks(bs, bs), { context, dtype });
      const before = da.slice(':', ':');
      const want = ccholeskyPlain(stored, n);
      const l = await choleskyInPlace(da);
      const tol = dtype === 'complex64' ? 1e-3 : 1e-9;
      expect(maxDiff((await l.collect()).data, want)).toBeLessThanOrEqual(1e-9);
      expect(da.dtype).toBe(dtype);
      // UpperTriangular(collect(DA)) ≈ UpperTriangular(L'); the strict lower triangle kept
      const got = (await da.collect()).data;
      const wantU = cadjoint(want, n, n);
      expectEvery(
        2 * n,
        n,
        (ip, j) => {
          // ip: the entry's row i = ⌊ip / 2⌋ and its part (0 real, 1 imaginary)
          const at = ip + 2 * j * n;
          const v = ip >> 1 <= j ? wantU[at] : stored[at];
          return Math.abs(got[at] - v) <= tol * (1 + Math.abs(v));
        },
        'within tol·(1 + |want|) of UpperTriangular(Lᴴ) above, the input below',
      );
      // an array sliced from it before keeps the old values
      expect(maxDiff((await before.collect()).data, stored)).toBe(0);
    }
  }, 120_000);

  it('solve.jl: ComplexF64 Cholesky decomposition with ldiv! on DMatrix and DVector (and a plain vector)', async () => {
    const { context } = rig;
    const o = { context, dtype: 'complex128' as const };
    for (const [n, bi, bj] of [
      [128, 128, 128],
      [128, 64, 128],
      [29, 8, 6],
    ]) {
      const a = once(`hpd ${n} ${2 * n}`, () => hpd(random, n, 2 * n));
      const l = await cholesky(distribute(a, [n, n], new Blocks(bi, bj), o));
      const bm = random(2 * n * n, 9);
      const dbm = distribute(bm, [n, n], new Blocks(bi, bj), o);
      await ldivInto(l, dbm);
      const wantM = once(`solve hpd ${n} ${2 * n} bm`, () => csolvePlain(a, n, bm, n));
      expect(maxDiff((await dbm.collect()).data, wantM)).toBeLessThanOrEqual(1e-10);
      const bv = random(2 * n, 10);
      const dbv = distribute(bv, [n], new Blocks(bi), o);
      await ldivInto(l, dbv);
      const wantV = once(`solve hpd ${n} ${2 * n} bv`, () => csolvePlain(a, n, bv));
      expect(maxDiff((await dbv.collect()).data, wantV)).toBeLessThanOrEqual(1e-10);
      expect(maxDiff(await choleskySolve(l, bv), wantV)).toBeLessThanOrEqual(1e-10);
    }
  }, 120_000);
});

describe('complex cholesky and ishermitian misuse', () => {
  it('issymmetric is not conjugated; a complex b with a real factor is a DtypeError; a real plain b of a complex factor does not fit', async () => {
    const ctx = await rigForTest();
    const o = { context: ctx, dtype: 'complex128' as const };
    // [[1, i], [i, 1]] is symmetric, not hermitian; [[1, i], [-i, 1]] the other way round
    const sym = distribute([1, 0, 0, 1, 0, 1, 1, 0], [2, 2], new Blocks(1, 1), o);
    expect([await issymmetric(sym), await ishermitian(sym)]).toEqual([true, false]);
    const her = distribute([1, 0, 0, -1, 0, 1, 1, 0], [2, 2], new Blocks(1, 2), o);
    expect([await issymmetric(her), await ishermitian(her)]).toEqual([false, true]);
    const real = await cholesky(
      distribute([2, 0, 0, 2], [2, 2], new Blocks(2, 2), { context: ctx }),
    );
    await expect(
      choleskySolve(real, distribute([1, 0, 1, 0], [2], new Blocks(2), o)),
    ).rejects.toThrow(DtypeError);
    const l = await cholesky(
      her.add(distribute([2, 0, 0, 0, 0, 0, 2, 0], [2, 2], new Blocks(1, 2), o)),
    );
    await expect(ldivInto(l, new Float64Array(2))).rejects.toThrow(
      /pass b as 4 interleaved numbers/,
    );
  }, 30_000);
});

// Dagger's test/array/linalg/lu.jl and solve.jl (the LU part) for T = ComplexF64, ported: the
// complex factors, the permutation, solving (DMatrix, DVector and plain right-hand sides) and the
// determinant against a plain unblocked complex LU and an independent Gaussian elimination, on
// random inputs, odd sizes and several blockings and tiles, on 2 real worker threads and on 2
// real worker processes (those run the built dist: build first).
import { describe, expect, it } from 'vitest';
import { cluPlain, cmatmul, csolvePlain, maxDiff } from './__fixtures__/complex-reference.js';
import { expectEntries, random } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import {
  Blocks,
  complexDet,
  DArray,
  DtypeError,
  det,
  distribute,
  ldivInto,
  lu,
  luInPlace,
  SingularError,
  solve,
} from './index.js';

/** The plain LUs and solves, once per input: both rigs (and some blockings) check the same. */
const once = referenceCache();

/** A random complex `n × n` (interleaved) with a heavier diagonal: well conditioned. */
function cmatrix(n: number, seed: number): Float64Array {
  const a = random(2 * n * n, seed);
  for (let i = 0; i < n; i++) a[2 * (i + i * n)] += 0.3;
  return a;
}

/** The rows of `a` (complex `m × n`) in the order `p`. */
function permuteRows(a: Float64Array, p: Int32Array, m: number, n: number): Float64Array {
  const out = new Float64Array(a.length);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++)
      out.set(a.subarray(2 * (p[i] + j * m), 2 * (p[i] + j * m) + 2), 2 * (i + j * m));
  return out;
}

describeOnRigs('on %s', (rig) => {
  for (const pivot of [false, true]) {
    it(`lu.jl: ComplexF64 with ${pivot ? 'RowMaximum()' : 'NoPivot()'}`, async () => {
      const { context } = rig;
      // Dagger's 128² in 64² and 64×32 blocks; odd and rectangular sides, uneven blocks and tiles.
      const cases: [number, number, number[], number | undefined][] = [
        [128, 128, [64, 64], undefined],
        [128, 128, [64, 32], undefined],
        [37, 37, [8, 8], undefined],
        [33, 33, [10, 12], 40],
        [37, 23, [8, 5], undefined],
        [23, 37, [6, 9], 7],
      ];
      for (const [m, n, bs, tile] of cases) {
        const k = Math.min(m, n);
        const input = m === n ? `cmatrix ${n} ${n + bs[0]}` : `random ${m}x${n} ${m + n}`;
        const a = m === n ? cmatrix(n, n + bs[0]) : random(2 * m * n, m + n);
        const da = distribute(a, [m, n], new Blocks(bs[0], bs[1]), {
          context,
          dtype: 'complex128',
        });
        const f = await lu(da, { pivot, ...(tile ? { tile } : {}) });
        const want = once(`lu ${input} ${pivot}`, () => cluPlain(a, m, n, pivot));
        expect(f.info).toBe(0);
        expect(Array.from(f.p)).toEqual(Array.from(want.p));
        expect([f.L.dtype, f.U.dtype]).toEqual(['complex128', 'complex128']);
        expect([f.L.shape, f.U.shape]).toEqual([
          [m, k],
          [k, n],
        ]);
        const l = (await f.L.collect()).data;
        const u = (await f.U.collect()).data;
        const tol = pivot ? 1e-10 : 1e-6;
        expect(maxDiff(l, want.l)).toBeLessThanOrEqual(tol);
        expect(maxDiff(u, want.u)).toBeLessThanOrEqual(tol);
        // P·A = L·U; istril(L), istriu(U)
        expect(maxDiff(permuteRows(a, f.p, m, n), cmatmul(l, u, m, k, n))).toBeLessThanOrEqual(tol);
        expectEntries(
          m,
          k,
          (i, j) => i < j,
          (i, j) => l[2 * (i + j * m)],
        );
        expectEntries(
          m,
          k,
          (i, j) => i < j,
          (i, j) => l[2 * (i + j * m) + 1],
        );
        // P is a permutation matrix of 0s and 1s
        const pm = (await f.P.collect()).data;
        expect(pm.every((v) => v === 0 || v === 1)).toBe(true);
        // lu did not modify DA
        expect(maxDiff((await da.collect()).data, a)).toBe(0);
        if (m !== n) continue;
        // lu_DA \ b against B \ b (b complex, interleaved; and a real b)
        const b = random(2 * n, 7);
        const x = await f.solve(b);
        expect(
          maxDiff(
            x,
            once(`solve ${input} b`, () => csolvePlain(a, n, b)),
          ),
        ).toBeLessThanOrEqual(1e-8);
        const real = random(n, 8);
        const asComplex = Float64Array.from({ length: 2 * n }, (_, i) => (i % 2 ? 0 : real[i / 2]));
        const wantReal = once(`solve ${input} real`, () => csolvePlain(a, n, asComplex));
        expect(maxDiff(await f.solve(real), wantReal)).toBeLessThanOrEqual(1e-8);
        // det(A): the product of U's diagonal, signed by the permutation
        const d = await complexDet(da, tile ? { tile } : {});
        const ref = f.complexDet();
        expect(Math.hypot(d.re - ref.re, d.im - ref.im)).toBeLessThanOrEqual(
          1e-12 * Math.hypot(ref.re, ref.im),
        );
        let [pr, pi] = [1, 0];
        for (let i = 0; i < n; i++) {
          const [ur, ui] = [want.u[2 * (i + i * n)], want.u[2 * (i + i * n) + 1]];
          [pr, pi] = [pr * ur - pi * ui, pr * ui + pi * ur];
        }
        let sign = 1;
        const seen = Array.from(want.p);
        for (let i = 0; i < n; i++)
          while (seen[i] !== i) {
            const j = seen[i];
            [seen[i], seen[j]] = [seen[j], seen[i]];
            sign = -sign;
          }
        expect(Math.hypot(d.re - sign * pr, d.im - sign * pi)).toBeLessThanOrEqual(
          1e-7 * Math.hypot(pr, pi),
        );
      }
    }, 120_000);
  }

  for (const pivot of [false, true]) {
    it(`lu.jl: ComplexF64 with ${pivot ? 'RowMaximum()' : 'NoPivot()'}: In-place (lu!)`, async () => {
      const { context } = rig;
      for (const [n, bs] of [
        [128, [64, 64]],
        [128, [64, 32]],
        [29, [8, 5]],
      ] as const) {
        const input = `cmatrix ${n} ${5 * n + bs[1]}`;
        const a = cmatrix(n, 5 * n + bs[1]);
        const da = distribute(a, [n, n], new Blocks(bs[0], bs[1]), {
          context,
          dtype: 'complex128',
        });
        const f = await luInPlace(da, { pivot });
        const want = once(`lu ${input} ${pivot}`, () => cluPlain(a, n, n, pivot));
        expect(Array.from(f.p)).toEqual(Array.from(want.p));
        const tol = pivot ? 1e-10 : 1e-6;
        // the packed factors: L's multipliers below the diagonal, U on and above it
        const packed = (await da.collect()).data;
        expect(da.dtype).toBe('complex128');
        const expected = Float64Array.from(want.u);
        for (let j = 0; j < n; j++)
          for (let i = j + 1; i < n; i++)
            expected.set(want.l.subarray(2 * (i + j * n), 2 * (i + j * n) + 2), 2 * (i + j * n));
        expect(maxDiff(packed, expected)).toBeLessThanOrEqual(tol);
        // solving with it; the changes propagated to DA
        const b = random(2 * n, 12);
        const wantX = once(`solve ${input} b12`, () => csolvePlain(a, n, b));
        expect(maxDiff(await f.solve(b), wantX)).toBeLessThanOrEqual(1e-8);
        expect(maxDiff(packed, a)).toBeGreaterThan(0.01);
      }
    }, 120_000);
  }

  it('lu.jl: Singular Values (ComplexF64 ones)', async () => {
    const ones = DArray.ones([128, 128], new Blocks(64, 64), {
      context: rig.context,
      dtype: 'complex128',
    });
    const error = await lu(ones).catch((e: unknown) => e);
    expect(SingularError.isInstance(error)).toBe(true);
    expect((error as SingularError).info).toBe(2);
    expect(await complexDet(ones)).toEqual({ re: 0, im: 0 });
  }, 120_000);

  it('solve.jl: ComplexF64 LU decomposition with DMatrix, DVector and plain Vector right-hand sides', async () => {
    const { context } = rig;
    const o = { context, dtype: 'complex128' as const };
    // Dagger's N = 128 with blocks of 128 and 64 rows; and an odd side.
    for (const [n, bi, bj] of [
      [128, 128, 128],
      [128, 64, 128],
      [41, 9, 14],
    ]) {
      const a = cmatrix(n, 3 * n);
      const da = distribute(a, [n, n], new Blocks(bi, bj), o);
      const f = await lu(da);
      // ldiv!(lu_DA, DB) on a DMatrix
      const bm = random(2 * n * n, 5);
      const wantM = once(`solve cmatrix ${n} ${3 * n} bm`, () => csolvePlain(a, n, bm, n));
      const dbm = distribute(bm, [n, n], new Blocks(bi, bj), o);
      await ldivInto(f, dbm);
      expect(dbm.dtype).toBe('complex128');
      expect(maxDiff((await dbm.collect()).data, wantM)).toBeLessThanOrEqual(1e-8);
      // ldiv!(lu_DA, Db) on a DVector
      const bv = random(2 * n, 6);
      const wantV = once(`solve cmatrix ${n} ${3 * n} bv`, () => csolvePlain(a, n, bv));
      const dbv = distribute(bv, [n], new Blocks(bi), o);
      await ldivInto(f, dbv);
      expect(maxDiff((await dbv.collect()).data, wantV)).toBeLessThanOrEqual(1e-8);
      // ldiv!(lu_DA, b) on a plain Vector (interleaved pairs)
      const plain = Float64Array.from(bv);
      await ldivInto(f, plain);
      expect(maxDiff(plain, wantV)).toBeLessThanOrEqual(1e-8);
      // A \ B without keeping the factorization
      const x = await solve(da, distribute(bm, [n, n], new Blocks(bi, bj), o));
      expect(maxDiff((await x.collect()).data, wantM)).toBeLessThanOrEqual(1e-8);
    }
  }, 120_000);
});

describe('complex lu misuse', () => {
  it('det of a complex matrix and a complex b with a real A are DtypeErrors saying what to do', async () => {
    const ctx = await rigForTest();
    const z = DArray.rand([4, 4], new Blocks(2, 2), { context: ctx, seed: 1 });
    const c = distribute(random(32, 2), [4, 4], new Blocks(2, 2), {
      context: ctx,
      dtype: 'complex128',
    });
    const e = await det(c).catch((x: unknown) => x);
    expect(DtypeError.isInstance(e)).toBe(true);
    expect((e as Error).message).toMatch(/complexDet\(a\)/);
    await expect(lu(c).then((f) => f.det())).rejects.toThrow(/F\.complexDet\(\)/);
    await expect((await lu(z)).solve(c.view(':', 0))).rejects.toThrow(DtypeError);
    await expect(solve(z, c)).rejects.toThrow(/solve\(complex\(a\), b\)/);
    // a real A's complexDet has imaginary part 0
    expect((await complexDet(z)).im).toBe(0);
    expect((await complexDet(z)).re).toBeCloseTo(await det(z), 12);
    await expect((await lu(c)).solve(new Float64Array(3))).rejects.toThrow(
      /interleaved re, im pairs/,
    );
  }, 30_000);
});

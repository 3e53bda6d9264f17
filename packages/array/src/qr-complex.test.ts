// Dagger's test/array/linalg/qr.jl for T = ComplexF64 ("Tile QR", "Single tile QR", "Smaller
// than block QR", "In-place qr!", "QR least-squares", "pormqr!", "lmul!/rmul!", "Scalar * Q",
// "DMatrix(Q) / DMatrix(Q')"), ported: Dagger's residual checks (‖A − Q·R‖₁ and ‖I − QᴴQ‖₁
// within 2 units of roundoff, scaled as Dagger scales them, R upper triangular), Q and R against
// a plain unblocked complex Householder QR, the least-squares solution against plain complex
// elimination on the normal equations, and Q as an operator against products with the collected
// Q, on random inputs, odd sizes and several blockings and tiles, on 2 real worker threads and
// on 2 real worker processes (those run the built dist: build first).
import type { Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  cadjoint,
  cmatmul,
  copnorm1,
  cqrPlain,
  csolvePlain,
  maxDiff,
} from './__fixtures__/complex-reference.js';
import { expectComplexTriu, random } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { adjoint, Blocks, DtypeError, distribute, qr, qrInPlace, solve } from './index.js';

const EPS = 2 ** -52;

/**
 * The plain QR of checkQr's `m × n` input (its seed is `m·31 + n`), computed once per file: both
 * rigs and every blocking of a size factor the same input.
 */
const once = referenceCache();

/** Dagger's check_qr_residuals for a complex `m × n`. */
async function checkQr(
  context: Context,
  m: number,
  n: number,
  blocks: [number, number],
  tile?: number,
): Promise<void> {
  const a = random(2 * m * n, m * 31 + n);
  const da = distribute(a, [m, n], new Blocks(...blocks), { context, dtype: 'complex128' });
  const f = await qr(da, tile ? { tile } : {});
  const k = Math.min(m, n);
  expect([f.Q.shape, f.R.shape, f.Q.dtype, f.R.dtype]).toEqual([
    [m, k],
    [k, n],
    'complex128',
    'complex128',
  ]);
  const q = (await f.Q.collect()).data;
  const r = (await f.R.collect()).data;
  const qr_ = cmatmul(q, r, m, k, n);
  const res1 =
    copnorm1(
      Float64Array.from(a, (x, i) => x - qr_[i]),
      m,
      n,
    ) /
    (copnorm1(a, m, n) * Math.max(m, n) * EPS);
  const gram = cmatmul(cadjoint(q, m, k), q, k, m, k);
  for (let i = 0; i < k; i++) gram[2 * (i + i * k)] -= 1;
  const res2 = copnorm1(gram, k, k) / (n * EPS);
  expect(res1).toBeLessThan(2); // factorization residual
  expect(res2).toBeLessThan(2); // orthogonality residual
  // triu(R) ≈ R; the diagonal is real (LAPACK's zgeqrf)
  expectComplexTriu(k, n, r);
  // Q and R against a plain unblocked Householder QR with LAPACK's conventions
  const want = once(`${m}x${n}`, () => cqrPlain(a, m, n));
  expect(maxDiff(q, want.q)).toBeLessThanOrEqual(1e-10);
  expect(maxDiff(r, want.r)).toBeLessThanOrEqual(1e-10);
  expect(maxDiff((await da.collect()).data, a)).toBe(0);
}

describeOnRigs('on %s', (rig) => {
  it('qr.jl: Tile QR: ComplexF64 (square, tall and wide; blocks (32,32) and (16,32))', async () => {
    for (const bs of [
      [32, 32],
      [16, 32],
    ] as [number, number][]) {
      await checkQr(rig.context, 128, 128, bs);
      await checkQr(rig.context, 128, 64, bs);
      await checkQr(rig.context, 64, 128, bs);
    }
  }, 180_000);

  it('qr.jl: ComplexF64 odd sizes, uneven blocks and tiles', async () => {
    await checkQr(rig.context, 37, 23, [8, 5]);
    await checkQr(rig.context, 23, 37, [6, 9], 7);
    await checkQr(rig.context, 50, 50, [50, 50], 13);
    await checkQr(rig.context, 41, 5, [41, 5], 3);
  }, 120_000);

  it('qr.jl: Single tile QR and Smaller than block QR: ComplexF64', async () => {
    await checkQr(rig.context, 32, 32, [32, 32]);
    await checkQr(rig.context, 16, 16, [32, 32]);
  }, 120_000);

  it('qr.jl: In-place qr!: ComplexF64', async () => {
    const { context } = rig;
    for (const [m, n, bs] of [
      [128, 128, [32, 32]],
      [45, 31, [10, 6]],
    ] as [number, number, [number, number]][]) {
      const a = random(2 * m * n, 7 * m + n);
      const da = distribute(a, [m, n], new Blocks(...bs), { context, dtype: 'complex128' });
      const f = await qrInPlace(da);
      const k = Math.min(m, n);
      // R_local = triu(collect(DA_copy)); Q·R_local ≈ A
      const packed = (await da.collect()).data;
      const r = new Float64Array(2 * k * n);
      for (let j = 0; j < n; j++)
        for (let i = 0; i <= Math.min(j, k - 1); i++)
          r.set(packed.subarray(2 * (i + j * m), 2 * (i + j * m) + 2), 2 * (i + j * k));
      expect(maxDiff(r, (await f.R.collect()).data)).toBe(0);
      const q = (await f.Q.collect()).data;
      const back = cmatmul(q, r, m, k, n);
      const res =
        copnorm1(
          Float64Array.from(a, (x, i) => x - back[i]),
          m,
          n,
        ) /
        (copnorm1(a, m, n) * Math.max(m, n) * EPS);
      expect(res).toBeLessThan(2);
    }
  }, 120_000);

  it('qr.jl: QR least-squares: ComplexF64 (and A \\ b for a tall complex A)', async () => {
    const { context } = rig;
    const o = { context, dtype: 'complex128' as const };
    for (const [m, n, bs] of [
      [128, 64, [32, 32]],
      [45, 17, [10, 6]],
    ] as [number, number, [number, number]][]) {
      const a = random(2 * m * n, m + n);
      const xTrue = random(2 * n, 3);
      const b = cmatmul(a, xTrue, m, n, 1);
      const f = await qr(distribute(a, [m, n], new Blocks(...bs), o));
      // x_solved ≈ x_true rtol = 1e-8
      const x = await f.solve(distribute(b, [m], new Blocks(bs[0]), o));
      expect([x.shape, x.dtype]).toEqual([[n], 'complex128']);
      expect(maxDiff((await x.collect()).data, xTrue)).toBeLessThanOrEqual(1e-8);
      expect(maxDiff(await f.solve(b), xTrue)).toBeLessThanOrEqual(1e-8);
      // an inconsistent b: the normal equations' solution
      const noisy = random(2 * m, 4);
      const ah = cadjoint(a, m, n);
      const want = csolvePlain(cmatmul(ah, a, n, m, n), n, cmatmul(ah, noisy, n, m, 1));
      const viaSolve = await solve(distribute(a, [m, n], new Blocks(...bs), o), noisy);
      expect(maxDiff(viaSolve, want)).toBeLessThanOrEqual(1e-8);
    }
  }, 120_000);
});

/** Dagger's residual: ‖got − want‖₁ / (‖want‖₁ · max(size) · eps), complex. */
function residual(got: ArrayLike<number>, want: ArrayLike<number>, m: number, n: number): number {
  const d = Float64Array.from(want, (w, i) => got[i] - w);
  return copnorm1(d, m, n) / (copnorm1(want, m, n) * Math.max(m, n) * EPS);
}

describeOnRigs('on %s', (rig) => {
  it('qr.jl: pormqr! side=L/R trans=N/C and lmul!/rmul! on DMatrix targets: ComplexF64', async () => {
    const { context } = rig;
    const o = { context, dtype: 'complex128' as const };
    for (const [n, bs, cb] of [
      [128, 32, [32, 32]],
      [37, 8, [5, 7]],
    ] as const) {
      const a = random(2 * n * n, n + 1);
      const f = await qr(distribute(a, [n, n], new Blocks(bs, bs), o));
      const q = (await f.Q.collect()).data;
      const qh = cadjoint(q, n, n);
      const w = Math.max(1, n >> 1);
      for (const adjoint of [false, true]) {
        const qq = adjoint ? qh : q;
        // side 'L': Q·C or Q'·C, C n × w
        const c = random(2 * n * w, w + (adjoint ? 1 : 0));
        const dc = distribute(c, [n, w], new Blocks(cb[0], cb[1]), o);
        expect(await f.lmulQ(dc, { adjoint })).toBe(dc);
        expect(dc.blocks.sizes).toEqual(cb);
        expect(residual((await dc.collect()).data, cmatmul(qq, c, n, n, w), n, w)).toBeLessThan(2);
        // side 'R': C·Q or C·Q', C w × n
        const r = random(2 * w * n, n + (adjoint ? 3 : 2));
        const dr = distribute(r, [w, n], new Blocks(cb[1], cb[0]), o);
        await f.rmulQ(dr, { adjoint });
        expect(residual((await dr.collect()).data, cmatmul(r, qq, w, n, n), w, n)).toBeLessThan(2);
        // a vector, Q·x
        const x = random(2 * n, 5);
        const dx = distribute(x, [n], new Blocks(cb[0]), o);
        await f.lmulQ(dx, { adjoint });
        expect(maxDiff((await dx.collect()).data, cmatmul(qq, x, n, n, 1))).toBeLessThanOrEqual(
          1e-12,
        );
      }
    }
  }, 120_000);

  it('qr.jl: lmul!/rmul! on dense targets (a caller array written in place): ComplexF64', async () => {
    const n = 64;
    const a = random(2 * n * n, 4);
    const f = await qr(
      distribute(a, [n, n], new Blocks(32, 32), { context: rig.context, dtype: 'complex128' }),
    );
    const q = (await f.Q.collect()).data;
    for (const adjoint of [false, true]) {
      const qq = adjoint ? cadjoint(q, n, n) : q;
      const b = { data: random(2 * n * 32, 8), shape: [n, 32] };
      const before = Float64Array.from(b.data);
      expect(await f.lmulQ(b, { adjoint })).toBe(b);
      expect(maxDiff(b.data, cmatmul(qq, before, n, n, 32))).toBeLessThanOrEqual(1e-12);
      const c = { data: random(2 * 32 * n, 9), shape: [32, n] };
      const c0 = Float64Array.from(c.data);
      await f.rmulQ(c, { adjoint });
      expect(maxDiff(c.data, cmatmul(c0, qq, 32, n, n))).toBeLessThanOrEqual(1e-12);
      const v = random(2 * n, 10);
      const v0 = Float64Array.from(v);
      await f.lmulQ(v, { adjoint });
      expect(maxDiff(v, cmatmul(qq, v0, n, n, 1))).toBeLessThanOrEqual(1e-12);
    }
  }, 120_000);

  it("qr.jl: Scalar * Q and DMatrix(Q) / DMatrix(Q'): ComplexF64 (and the full Q of a tall A)", async () => {
    const { context } = rig;
    const o = { context, dtype: 'complex128' as const };
    const a = random(2 * 64 * 64, 12);
    const f = await qr(distribute(a, [64, 64], new Blocks(32, 32), o));
    const q = (await f.Q.collect()).data;
    const q3 = Float64Array.from(q, (x) => x * 3);
    // Q*s, s*Q, Q'*s, s*Q'
    expect(maxDiff((await f.Q.mul(3).collect()).data, q3)).toBe(0);
    expect(maxDiff((await adjoint(f.Q).mul(3).collect()).data, cadjoint(q3, 64, 64))).toBe(0);
    // DMatrix(Q) of a tall A: orthonormal columns; DMatrix(Q') its adjoint
    const [m, n] = [128, 64];
    const t = random(2 * m * n, 13);
    const g = await qr(distribute(t, [m, n], new Blocks(32, 32), o));
    const gq = (await g.Q.collect()).data;
    const gram = cmatmul(cadjoint(gq, m, n), gq, n, m, n);
    for (let i = 0; i < n; i++) gram[2 * (i + i * n)] -= 1;
    expect(copnorm1(gram, n, n) / (n * EPS)).toBeLessThan(2);
    expect(maxDiff((await adjoint(g.Q).collect()).data, cadjoint(gq, m, n))).toBe(0);
    // the full Q (lmul! of I): unitary, its first columns F.Q; Qᴴ·(Q·B) = B
    const eye = distribute(
      Float64Array.from({ length: 2 * m * m }, (_, i) => (i % (2 * m + 2) === 0 ? 1 : 0)),
      [m, m],
      new Blocks(32, 32),
      o,
    );
    const full = (await (await g.lmulQ(eye)).collect()).data;
    const fg = cmatmul(cadjoint(full, m, m), full, m, m, m);
    for (let i = 0; i < m; i++) fg[2 * (i + i * m)] -= 1;
    expect(copnorm1(fg, m, m) / (m * EPS)).toBeLessThan(2);
    expect(maxDiff(full.subarray(0, 2 * m * n), gq)).toBeLessThanOrEqual(1e-12);
    const b = random(2 * m * 3, 2);
    const db = distribute(b, [m, 3], new Blocks(32, 2), o);
    await g.lmulQ(db);
    await g.lmulQ(db, { adjoint: true });
    expect(maxDiff((await db.collect()).data, b)).toBeLessThanOrEqual(1e-12);
  }, 120_000);
});

describe('complex qr misuse', () => {
  it("a real b for a complex Q, a complex b with a real A's QR are DtypeErrors; a plain b of the wrong length an ArgumentError", async () => {
    const ctx = await rigForTest();
    const o = { context: ctx, dtype: 'complex128' as const };
    const f = await qr(distribute(random(2 * 36, 1), [6, 6], new Blocks(3, 3), o));
    await expect(
      f.lmulQ(distribute(random(6, 2), [6], new Blocks(3), { context: ctx })),
    ).rejects.toThrow(/make b complex first with complex\(b\)/);
    await expect(f.lmulQ({ data: new Float64Array(6), shape: [6] })).rejects.toThrow(
      /12 interleaved re, im numbers/,
    );
    const real = await qr(distribute(random(36, 1), [6, 6], new Blocks(3, 3), { context: ctx }));
    await expect(real.solve(distribute(random(12, 2), [6], new Blocks(3), o))).rejects.toThrow(
      DtypeError,
    );
    await expect(real.lmulQ(distribute(random(12, 2), [6], new Blocks(3), o))).rejects.toThrow(
      DtypeError,
    );
  }, 30_000);
});

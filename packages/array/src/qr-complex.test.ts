// Dagger's test/array/linalg/qr.jl for T = ComplexF64 ("Tile QR", "Single tile QR", "Smaller
// than block QR", "QR least-squares"), ported: Dagger's residual checks (‖A − Q·R‖₁ and
// ‖I − QᴴQ‖₁ within 2 units of roundoff, scaled as Dagger scales them, R upper triangular) on
// random inputs, odd sizes and several blockings and tiles, and the least-squares solution
// against plain complex elimination on the normal equations, on 2 real worker threads and on
// 2 real worker processes (those run the built dist: build first).
import type { Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  cadjoint,
  cmatmul,
  copnorm1,
  csolvePlain,
  maxDiff,
} from './__fixtures__/complex-reference.js';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs, threadsRig } from './__fixtures__/rig.js';
import { Blocks, DtypeError, distribute, qr, solve } from './index.js';

const EPS = 2 ** -52;

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
  for (let j = 0; j < n; j++)
    for (let i = 0; i < k; i++) {
      if (i > j) expect([r[2 * (i + j * k)], r[2 * (i + j * k) + 1]]).toEqual([0, 0]);
      if (i === j) expect(r[2 * (i + j * k) + 1]).toBe(0);
    }
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

describe('complex qr misuse', () => {
  it("a complex Q as an operator (lmulQ/rmulQ) and a complex b with a real A's QR are DtypeErrors", async () => {
    await using ctx = await threadsRig();
    const o = { context: ctx, dtype: 'complex128' as const };
    const f = await qr(distribute(random(2 * 36, 1), [6, 6], new Blocks(3, 3), o));
    await expect(f.lmulQ(distribute(random(12, 2), [6], new Blocks(3), o))).rejects.toThrow(
      /F\.Q\.matmul\(b\)/,
    );
    await expect(f.rmulQ(distribute(random(12, 2), [1, 6], new Blocks(1, 3), o))).rejects.toThrow(
      DtypeError,
    );
    const real = await qr(distribute(random(36, 1), [6, 6], new Blocks(3, 3), { context: ctx }));
    await expect(real.solve(distribute(random(12, 2), [6], new Blocks(3), o))).rejects.toThrow(
      DtypeError,
    );
  }, 30_000);
});

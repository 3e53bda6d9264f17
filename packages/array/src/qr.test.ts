// Dagger's test/array/linalg/qr.jl (the Float64 testsets of `qr`, `Q` as a matrix and the
// least-squares solve), ported: Dagger's residual checks (‖A − Q·R‖₁ and ‖I − QᵀQ‖₁ within 2
// units of roundoff, scaled as Dagger scales them), and Q and R against a plain unblocked
// Householder QR on random inputs, odd sizes and several blockings, on 2 real worker threads
// and on 2 real worker processes (those run the built dist: build first).
import { ArgumentError, type Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  gramMinusIdentity,
  opnorm1,
  productMinus,
  qrPlain,
} from './__fixtures__/linalg-reference.js';
import { expectClose, expectEntries, matmul, random } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute, qr, SingularError, solve } from './index.js';

const EPS = 2 ** -52;

/** The plain QRs, once per input: both rigs and both blockings of a size factor the same. */
const once = referenceCache();

/** Dagger's check_qr_residuals, and Q, R against the plain reference. */
async function checkQr(
  context: Context,
  m: number,
  n: number,
  blocks: [number, number],
  tile?: number,
): Promise<void> {
  const a = random(m * n, m * 31 + n);
  const da = distribute(a, [m, n], new Blocks(...blocks), { context });
  const f = await qr(da, tile ? { tile } : {});
  const k = Math.min(m, n);
  expect(f.Q.shape).toEqual([m, k]);
  expect(f.R.shape).toEqual([k, n]);
  const q = (await f.Q.collect()).data;
  const r = (await f.R.collect()).data;
  const res1 =
    opnorm1(productMinus(q, r, a, m, k, n), m, n) / (opnorm1(a, m, n) * Math.max(m, n) * EPS);
  const res2 = opnorm1(gramMinusIdentity(q, m, k), k, k) / (n * EPS);
  expect(res1).toBeLessThan(2); // factorization residual
  expect(res2).toBeLessThan(2); // orthogonality residual
  expectEntries(
    k,
    n,
    (i, j) => i > j,
    (i, j) => r[i + j * k],
  );
  const want = once(`${m}x${n}`, () => qrPlain(a, m, n));
  expectClose(q, want.q, 1e-12);
  expectClose(r, want.r, 1e-12);
}

describeOnRigs('on %s', (rig) => {
  it('qr.jl: Tile QR: Float64 (square, tall and wide; blocks (32,32) and (16,32))', async () => {
    for (const bs of [
      [32, 32],
      [16, 32],
    ] as [number, number][]) {
      await checkQr(rig.context, 128, 128, bs);
      await checkQr(rig.context, 128, 64, bs);
      await checkQr(rig.context, 64, 128, bs);
    }
  }, 120_000);

  it('qr.jl: odd sizes, uneven blocks and tiles', async () => {
    await checkQr(rig.context, 37, 23, [8, 6]);
    await checkQr(rig.context, 23, 37, [7, 9]);
    await checkQr(rig.context, 50, 50, [16, 7], 12);
    await checkQr(rig.context, 41, 5, [41, 5], 3);
  }, 120_000);

  it('qr.jl: Single tile QR and Smaller than block QR: Float64', async () => {
    await checkQr(rig.context, 32, 32, [32, 32]);
    await checkQr(rig.context, 16, 16, [32, 32]);
  }, 30_000);

  it('qr.jl: QR least-squares: Float64 (and A \\ b for a tall A)', async () => {
    const [m, n] = [128, 64];
    const a = random(m * n, 4);
    const xTrue = random(n, 5);
    const b = matmul(a, xTrue, m, n, 1);
    const da = distribute(a, [m, n], new Blocks(32, 32), { context: rig.context });
    const f = await qr(da);
    expectClose(await f.solve(b), xTrue, 1e-10);
    const x = await solve(da, distribute(b, [m], new Blocks(32), { context: rig.context }));
    expect(x.shape).toEqual([n]);
    expectClose((await x.collect()).data, xTrue, 1e-10);
    // a matrix right-hand side: two columns
    const b2 = new Float64Array([...b, ...b.map((v) => 2 * v)]);
    const x2 = await f.solve(distribute(b2, [m, 2], new Blocks(32, 1), { context: rig.context }));
    expect(x2.shape).toEqual([n, 2]);
    expectClose(
      (await x2.collect()).data,
      new Float64Array([...xTrue, ...xTrue.map((v) => 2 * v)]),
      1e-10,
    );
  }, 30_000);
});

describe('qr misuse', () => {
  it('a non-matrix, an empty one, a bad tile, a wide least-squares and a rank-deficient one are typed errors', async () => {
    const ctx = await rigForTest();
    await expect(qr(DArray.rand([5], new Blocks(5), { context: ctx }))).rejects.toThrow(
      /2-D DArray/,
    );
    await expect(qr({} as never)).rejects.toHaveProperty('code', ArgumentError.code);
    await expect(qr(DArray.rand([0, 3], new Blocks(1, 3), { context: ctx }))).rejects.toThrow(
      /empty/,
    );
    const a = DArray.rand([6, 4], new Blocks(3, 2), { context: ctx, seed: 1 });
    await expect(qr(a, { tile: 1.5 })).rejects.toThrow(/positive integer/);
    const wide = await qr(a.transpose());
    await expect(wide.solve([1, 2, 3, 4])).rejects.toThrow(/underdetermined/);
    const f = await qr(a);
    await expect(f.solve([1, 2])).rejects.toThrow(/array of 6 numbers/);
    // a zero second column: R's second diagonal element is exactly zero
    const z = Float64Array.from({ length: 18 }, (_, i) => (i >= 6 && i < 12 ? 0 : i + 1));
    const deficient = await qr(distribute(z, [6, 3], new Blocks(3, 3), { context: ctx }));
    expect(deficient.info).toBe(2);
    await expect(deficient.solve(new Float64Array(6))).rejects.toThrow(SingularError);
  }, 30_000);
});

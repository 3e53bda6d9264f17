// Dagger's test/array/linalg/svd.jl for T = ComplexF64 (and ComplexF32 in "Tile SVD"), ported:
// check_svd's reconstruction and orthonormality residuals (within 200 units of roundoff, scaled
// as Dagger scales them), descending non-negative values matching a plain reference (the real
// embedding's Jacobi eigenvalues), svdvals, a prescribed spectrum, solving and the
// pseudo-inverse against plain complex elimination; `svd` gathers the matrix to one processor,
// as docs/api.md says. On 2 real worker threads and on 2 real worker processes (those run the
// built dist: build first).
import type { Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  cadjoint,
  cmatmul,
  copnorm1,
  csolvePlain,
  cunitaryPlain,
  maxDiff,
} from './__fixtures__/complex-reference.js';
import { csvdvalsPlain } from './__fixtures__/complex-svdvals.js';
import { random } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, threadsRig } from './__fixtures__/rig.js';
import { Blocks, copyto, DArray, DtypeError, distribute, type SVD, svd, svdvals } from './index.js';

const EPS = { complex128: 2 ** -52, complex64: 2 ** -23 };

/**
 * The plain references, once per file: both rigs (and both blockings of a size) take the same
 * input. Singular values by `m×n:seed:dtype` (csvdvalsPlain of a `random(2·m·n, seed)` input of
 * `dtype`, stored as that dtype stores it).
 */
const once = referenceCache();

/** The plain singular values of `a`, the input that `key` names. */
function valuesOf(a: Float64Array, m: number, n: number, key: string): Float64Array {
  return once(key, () => csvdvalsPlain(a, m, n));
}

/** Dagger's check_svd on a complex `m × n` `a` (interleaved), `key` naming it for valuesOf. */
async function checkSvd(
  a: Float64Array,
  m: number,
  n: number,
  f: SVD,
  eps: number,
  key: string,
): Promise<void> {
  const k = Math.min(m, n);
  expect([f.U.shape, f.S.length, f.Vt.shape]).toEqual([[m, k], k, [k, n]]);
  expect([f.U.dtype, f.Vt.dtype]).toEqual(['complex128', 'complex128']);
  const u = (await f.U.collect()).data;
  const vt = (await f.Vt.collect()).data;
  const us = Float64Array.from(u, (x, i) => x * f.S[Math.floor(i / (2 * m))]);
  const recon = cmatmul(us, vt, m, k, n);
  const diff = Float64Array.from(a, (x, i) => x - recon[i]);
  expect(copnorm1(diff, m, n) / (copnorm1(a, m, n) * Math.max(m, n) * eps)).toBeLessThan(200);
  const uhu = cmatmul(cadjoint(u, m, k), u, k, m, k);
  const vvh = cmatmul(vt, cadjoint(vt, k, n), k, n, k);
  for (let i = 0; i < k; i++) {
    uhu[2 * (i + i * k)] -= 1;
    vvh[2 * (i + i * k)] -= 1;
  }
  expect(copnorm1(uhu, k, k) / (k * eps)).toBeLessThan(200);
  expect(copnorm1(vvh, k, k) / (k * eps)).toBeLessThan(200);
  for (let i = 0; i < k; i++) {
    expect(f.S[i]).toBeGreaterThanOrEqual(0);
    if (i > 0) expect(f.S[i]).toBeLessThanOrEqual(f.S[i - 1]);
  }
  expect(maxDiff(f.S, valuesOf(a, m, n, key))).toBeLessThanOrEqual(1e-7);
}

async function tile(
  context: Context,
  dtype: 'complex128' | 'complex64',
  m: number,
  n: number,
  bs: [number, number],
  seed: number,
): Promise<void> {
  const raw = random(2 * m * n, seed);
  const a = dtype === 'complex64' ? Float64Array.from(Float32Array.from(raw)) : raw;
  const da = distribute(a, [m, n], new Blocks(...bs), { context, dtype });
  // svd computes in Float64 whatever the input, so Float64's roundoff applies to the stored values
  await checkSvd(a, m, n, await svd(da), EPS.complex128, `${m}x${n}:${seed}:${dtype}`);
  expect(maxDiff((await da.collect()).data, a)).toBe(0); // svd must not modify its input
}

describeOnRigs('on %s', (rig) => {
  for (const [T, dtype] of [
    ['ComplexF64', 'complex128'],
    ['ComplexF32', 'complex64'],
  ] as const) {
    it(`svd.jl: Tile SVD: ${T} (Square, Tall, Wide, Irregular tiling, Single block-column)`, async () => {
      const { context } = rig;
      for (const bs of [
        [32, 32],
        [16, 32],
      ] as [number, number][])
        await tile(context, dtype, 64, 64, bs, 1);
      await tile(context, dtype, 128, 64, [32, 32], 2);
      await tile(context, dtype, 64, 96, [32, 16], 3);
      await tile(context, dtype, 100, 60, [24, 16], 4);
      await tile(context, dtype, 48, 40, [48, 64], 5);
      await tile(context, dtype, 1, 7, [1, 3], 6);
    }, 180_000);
  }

  it('svd.jl: svdvals: ComplexF64 (agrees with svd, input untouched)', async () => {
    for (const [m, n] of [
      [96, 96],
      [96, 40],
      [40, 96],
    ]) {
      const a = random(2 * m * n, m + n);
      const da = distribute(a, [m, n], new Blocks(32, 32), {
        context: rig.context,
        dtype: 'complex128',
      });
      const s = await svdvals(da);
      expect(maxDiff(s, valuesOf(a, m, n, `${m}x${n}:${m + n}:complex128`))).toBeLessThanOrEqual(
        1e-7,
      );
      expect(maxDiff(s, (await svd(da)).S)).toBeLessThanOrEqual(1e-12);
      expect(maxDiff((await da.collect()).data, a)).toBe(0);
    }
  }, 120_000);

  it('svd.jl: Prescribed spectrum: ComplexF64', async () => {
    const n = 64;
    const want = Float64Array.from({ length: n }, (_, i) => 10 - (9 * i) / (n - 1));
    const a = once('spectrum', () => {
      const q1 = cunitaryPlain(random, n, 21);
      const q2 = cunitaryPlain(random, n, 22);
      const qs = Float64Array.from(q1, (x, i) => x * want[Math.floor(i / (2 * n))]);
      return cmatmul(qs, cadjoint(q2, n, n), n, n, n);
    });
    const da = distribute(a, [n, n], new Blocks(16, 16), {
      context: rig.context,
      dtype: 'complex128',
    });
    expect(maxDiff(await svdvals(da), want)).toBeLessThanOrEqual(1e-12);
  }, 120_000);

  it('svd.jl: SVD solve: ComplexF64 (\\, ldiv! into X, inv of a square A)', async () => {
    const { context } = rig;
    const o = { context, dtype: 'complex128' as const };
    for (const [m, n] of [
      [64, 64],
      [96, 48],
      [48, 96],
    ]) {
      const a = random(2 * m * n, 3 * m + n);
      const f = await svd(distribute(a, [m, n], new Blocks(16, 16), o));
      const ah = cadjoint(a, m, n);
      // the minimum-norm least-squares solution, by the normal equations
      const want = (b: Float64Array, w: number) =>
        m >= n
          ? csolvePlain(cmatmul(ah, a, n, m, n), n, cmatmul(ah, b, n, m, w), w)
          : cmatmul(ah, csolvePlain(cmatmul(a, ah, m, n, m), m, b, w), n, m, w);
      const b = random(2 * m, 8);
      const wantB = once(`${m}x${n} b`, () => want(b, 1));
      const x = await f.solve(distribute(b, [m], new Blocks(16), o));
      expect([x.shape, x.dtype]).toEqual([[n], 'complex128']);
      expect(maxDiff((await x.collect()).data, wantB)).toBeLessThanOrEqual(1e-8);
      const into = DArray.zeros([n], new Blocks(16), o);
      copyto(into, await f.solve(distribute(b, [m], new Blocks(16), o)));
      expect(maxDiff((await into.collect()).data, wantB)).toBeLessThanOrEqual(1e-8);
      expect(maxDiff(await f.solve(b), wantB)).toBeLessThanOrEqual(1e-8);
      const bm = random(2 * m * 3, 9);
      const wantM = once(`${m}x${n} bm`, () => want(bm, 3));
      const xm = await f.solve(distribute(bm, [m, 3], new Blocks(16, 3), o));
      expect(xm.shape).toEqual([n, 3]);
      expect(maxDiff((await xm.collect()).data, wantM)).toBeLessThanOrEqual(1e-8);
    }
    const a = random(2 * 64 * 64, 30);
    const p = (await (await svd(distribute(a, [64, 64], new Blocks(16, 16), o))).inv().collect())
      .data;
    const eye = Float64Array.from({ length: 2 * 64 * 64 }, (_, i) => (i % 130 === 0 ? 1 : 0));
    expect(maxDiff(cmatmul(p, a, 64, 64, 64), eye)).toBeLessThanOrEqual(1e-9);
  }, 120_000);
});

describe('complex svd misuse', () => {
  it("a complex b with a real A's SVD is a DtypeError; V is the adjoint of Vt", async () => {
    await using ctx = await threadsRig();
    const real = await svd(DArray.rand([6, 4], new Blocks(3, 2), { context: ctx, seed: 3 }));
    const z = distribute(random(12, 1), [6], new Blocks(3), { context: ctx, dtype: 'complex128' });
    await expect(real.solve(z)).rejects.toThrow(DtypeError);
    const f = await svd(
      distribute(random(48, 2), [6, 4], new Blocks(3, 2), { context: ctx, dtype: 'complex128' }),
    );
    const vt = (await f.Vt.collect()).data;
    expect(maxDiff((await f.V.collect()).data, cadjoint(vt, 4, 4))).toBe(0);
  }, 30_000);
});

// Dagger's test/array/linalg/svd.jl, ported (Float64; `svd` gathers the matrix to one
// processor, as docs/api.md says): check_svd's reconstruction and orthonormality residuals
// (within 200 units of roundoff, scaled as Dagger scales them), descending non-negative values
// matching the square roots of AᵀA's eigenvalues (a plain Jacobi eigensolver), solving and the
// pseudo-inverse against plain elimination, on 2 real worker threads and on 2 real worker
// processes (those run the built dist: build first).
import { ArgumentError, type Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  eigenvalueRootsPlain,
  opnorm1,
  qrPlain,
  solvePlain,
} from './__fixtures__/linalg-reference.js';
import { expectClose, matmul, random, transpose } from './__fixtures__/reference.js';
import { referenceCache } from './__fixtures__/reference-cache.js';
import { describeOnRigs, threadsRig } from './__fixtures__/rig.js';
import { Blocks, copyto, DArray, distribute, type SVD, svd, svdvals } from './index.js';

const EPS = 2 ** -52;

/** The singular values as the square roots of AᵀA's (or AAᵀ's) eigenvalues, descending. */
function singularValuesPlain(a: Float64Array, m: number, n: number): Float64Array {
  const [p, g] =
    m >= n
      ? [n, matmul(transpose(a, m, n), a, n, m, n)]
      : [m, matmul(a, transpose(a, m, n), m, n, m)];
  return eigenvalueRootsPlain(g, p);
}

/**
 * The plain references (singular values, the prescribed spectrum's input, the solves), once per
 * file: both rigs and every blocking of a size take the same input (a 128² eigensolve is
 * 0.1–0.2 s).
 */
const once = referenceCache();

/** `singularValuesPlain` of the `m × n` input `random(m·n, seed)`, once per file. */
function singularValuesOf(a: Float64Array, m: number, n: number, seed: number): Float64Array {
  return once(`${m}x${n}:${seed}`, () => singularValuesPlain(a, m, n));
}

/** Dagger's check_svd of `f`, the SVD of `a` (`random(m·n, seed)`). */
async function checkSvd(
  a: Float64Array,
  m: number,
  n: number,
  seed: number,
  f: SVD,
): Promise<void> {
  const k = Math.min(m, n);
  expect(f.U.shape).toEqual([m, k]);
  expect(f.S.length).toBe(k);
  expect(f.Vt.shape).toEqual([k, n]);
  const u = (await f.U.collect()).data;
  const vt = (await f.Vt.collect()).data;
  const us = Float64Array.from(u, (x, i) => x * f.S[Math.floor(i / m)]);
  const recon = matmul(us, vt, m, k, n);
  const diff = Float64Array.from(a, (x, i) => x - recon[i]);
  expect(opnorm1(diff, m, n) / (opnorm1(a, m, n) * Math.max(m, n) * EPS)).toBeLessThan(200);
  const utu = matmul(transpose(u, m, k), u, k, m, k);
  const vvt = matmul(vt, transpose(vt, k, n), k, n, k);
  for (let i = 0; i < k; i++) {
    utu[i + i * k] -= 1;
    vvt[i + i * k] -= 1;
  }
  expect(opnorm1(utu, k, k) / (k * EPS)).toBeLessThan(200);
  expect(opnorm1(vvt, k, k) / (k * EPS)).toBeLessThan(200);
  for (let i = 0; i < k; i++) {
    expect(f.S[i]).toBeGreaterThanOrEqual(0);
    if (i > 0) expect(f.S[i]).toBeLessThanOrEqual(f.S[i - 1]);
  }
  expectClose(f.S, singularValuesOf(a, m, n, seed), 1e-7);
}

async function tile(
  context: Context,
  m: number,
  n: number,
  bs: [number, number],
  seed: number,
): Promise<void> {
  const a = random(m * n, seed);
  const da = distribute(a, [m, n], new Blocks(...bs), { context });
  await checkSvd(a, m, n, seed, await svd(da));
  expectClose((await da.collect()).data, a, 0); // svd must not modify its input
}

describeOnRigs('on %s', (rig) => {
  it('svd.jl: Tile SVD: Float64 (Square, Tall, Wide, Irregular tiling, Single block-column)', async () => {
    for (const bs of [
      [32, 32],
      [16, 32],
      [16, 16],
    ] as [number, number][])
      await tile(rig.context, 128, 128, bs, 1);
    for (const bs of [
      [32, 32],
      [16, 32],
    ] as [number, number][])
      await tile(rig.context, 128, 64, bs, 2);
    for (const bs of [
      [32, 32],
      [32, 16],
    ] as [number, number][])
      await tile(rig.context, 64, 128, bs, 3);
    await tile(rig.context, 100, 60, [24, 16], 4);
    await tile(rig.context, 48, 40, [48, 64], 5);
    await tile(rig.context, 1, 7, [1, 3], 6);
  }, 120_000);

  it('svd.jl: svdvals: Float64 (agrees with svd, input untouched), and In-place svd! as svd', async () => {
    for (const [m, n] of [
      [128, 128],
      [128, 48],
      [48, 128],
    ]) {
      const a = random(m * n, m + n);
      const da = distribute(a, [m, n], new Blocks(32, 32), { context: rig.context });
      const s = await svdvals(da);
      expectClose(s, singularValuesOf(a, m, n, m + n), 1e-7);
      expectClose(s, (await svd(da)).S, 1e-12);
      expectClose((await da.collect()).data, a, 0);
    }
  }, 120_000);

  it('svd.jl: Prescribed spectrum: Float64', async () => {
    const n = 64;
    const want = Float64Array.from({ length: n }, (_, i) => 10 - (9 * i) / (n - 1));
    const a = once('spectrum', () => {
      const q1 = qrPlain(random(n * n, 21), n, n).q;
      const q2 = qrPlain(random(n * n, 22), n, n).q;
      const qs = Float64Array.from(q1, (x, i) => x * want[Math.floor(i / n)]);
      return matmul(qs, transpose(q2, n, n), n, n, n);
    });
    const s = await svdvals(distribute(a, [n, n], new Blocks(16, 16), { context: rig.context }));
    expectClose(s, want, 1e-12);
  }, 120_000);

  it('svd.jl: SVD solve: Float64 (\\, ldiv! into X, inv of a square A)', async () => {
    const { context } = rig;
    for (const [m, n] of [
      [64, 64],
      [96, 48],
      [48, 96],
    ]) {
      const a = random(m * n, 3 * m + n);
      const f = await svd(distribute(a, [m, n], new Blocks(16, 16), { context }));
      const at = transpose(a, m, n);
      // the minimum-norm least-squares solution, by the normal equations
      const want = (b: Float64Array, w: number) =>
        m >= n
          ? solvePlain(matmul(at, a, n, m, n), n, matmul(at, b, n, m, w))
          : matmul(at, solvePlain(matmul(a, at, m, n, m), m, b), n, m, w);
      const b = random(m, 8);
      const wantB = once(`${m}x${n} b`, () => want(b, 1));
      const x = await f.solve(distribute(b, [m], new Blocks(16), { context }));
      expect(x.shape).toEqual([n]);
      expectClose((await x.collect()).data, wantB, 1e-8);
      const into = DArray.zeros([n], new Blocks(16), { context });
      copyto(into, await f.solve(distribute(b, [m], new Blocks(16), { context })));
      expectClose((await into.collect()).data, wantB, 1e-8);
      expectClose(await f.solve(b), wantB, 1e-8);
      const bm = random(m * 3, 9);
      const wantM = once(`${m}x${n} bm`, () => want(bm, 3));
      const xm = await f.solve(distribute(bm, [m, 3], new Blocks(16, 3), { context }));
      expect(xm.shape).toEqual([n, 3]);
      expectClose((await xm.collect()).data, wantM, 1e-8);
    }
    const a = random(64 * 64, 30);
    const p = (
      await (await svd(distribute(a, [64, 64], new Blocks(16, 16), { context }))).inv().collect()
    ).data;
    const eye = Float64Array.from({ length: 64 * 64 }, (_, i) => (i % 65 === 0 ? 1 : 0));
    expectClose(matmul(p, a, 64, 64, 64), eye, 1e-9);
  }, 120_000);
});

describe('svd misuse', () => {
  it('full=true unsupported; a non-matrix, an empty one and a b that does not fit are ArgumentErrors', async () => {
    await using ctx = await threadsRig();
    const da = DArray.rand([32, 32], new Blocks(16, 16), { context: ctx, seed: 1 });
    await expect(svd(da, { full: true })).rejects.toThrow(/thin SVD/);
    await expect(svd(da, { full: true })).rejects.toHaveProperty('code', ArgumentError.code);
    await expect(svdvals(DArray.rand([4], new Blocks(2), { context: ctx }))).rejects.toThrow(
      /2-D DArray/,
    );
    await expect(svd(DArray.zeros([0, 2], new Blocks(1, 1), { context: ctx }))).rejects.toThrow(
      /empty/,
    );
    const f = await svd(da);
    await expect(f.solve([1, 2])).rejects.toThrow(/array of 32 numbers/);
    await expect(f.solve(DArray.rand([5], new Blocks(5), { context: ctx }))).rejects.toThrow(
      /must have 32 rows/,
    );
  }, 30_000);
});

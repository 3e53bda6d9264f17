// Dagger's test/array/linalg/qr.jl, its communication-avoiding (CAQR, `p > 1`) testsets and the
// workspace-level calls for T = ComplexF64 (and ComplexF32 "CAQR single-precision"), ported:
// Dagger's residuals (‖A − Q·R‖₁ and ‖I − QᴴQ‖₁ within 2 units of roundoff, scaled as Dagger
// scales them), R upper triangular with a real diagonal (LAPACK's zgeqrf), and Q and R against a
// plain unblocked complex Householder QR (up to the signs of R's rows, which a different order of
// reflections may flip), Q as an operator against products with the collected Q, on random
// inputs and odd sizes, on 2 real worker threads and on 2 real worker processes (those run the
// built dist: build first).
import { type Context, disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  cadjoint,
  cmatmul,
  copnorm1,
  cqrPlain,
  maxDiff,
} from './__fixtures__/complex-reference.js';
import { expectComplexTriu, random } from './__fixtures__/reference.js';
import { describeOnRigs, threadsRig } from './__fixtures__/rig.js';
import {
  Blocks,
  cageqrf,
  DArray,
  DtypeError,
  distribute,
  geqrf,
  porgqr,
  pormqr,
  type QR,
  qr,
  qrInPlace,
} from './index.js';

const EPS64 = 2 ** -52;
const EPS32 = 2 ** -23;
// 37 × 23 in 8 × 6 blocks, tile 5: 8 tile rows (p = 2, 4, 8 divide them), 5 tile columns
const [M, N, BS, TILE] = [37, 23, [8, 6] as [number, number], 5];

/** The complex `triu` of a column-major `m × n`, interleaved. */
function ctriu(x: ArrayLike<number>, m: number, n: number): Float64Array {
  const r = new Float64Array(2 * m * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= Math.min(j, m - 1); i++) {
      r[2 * (i + j * m)] = x[2 * (i + j * m)];
      r[2 * (i + j * m) + 1] = x[2 * (i + j * m) + 1];
    }
  return r;
}

/** Dagger's res1 = ‖A − Q·R‖₁ / (‖A‖₁·max(m, n)·eps) and res2 = ‖I − QᴴQ‖₁ / (c·eps). */
function residuals(
  a: ArrayLike<number>,
  q: ArrayLike<number>,
  r: ArrayLike<number>,
  [m, k, n]: [number, number, number],
  c: number,
  eps: number,
): [number, number] {
  const qr_ = cmatmul(q, r, m, k, n);
  const diff = Float64Array.from(a, (x, i) => x - qr_[i]);
  const res1 = copnorm1(diff, m, n) / (copnorm1(a, m, n) * Math.max(m, n) * eps);
  const gram = cmatmul(cadjoint(q, m, k), q, k, m, k);
  for (let i = 0; i < k; i++) gram[2 * (i + i * k)] -= 1;
  return [res1, copnorm1(gram, k, k) / (c * eps)];
}

/** The full complex `m × m` Q of `f` through `porgqr` (with `adjoint`, Qᴴ). */
async function fullQ(f: QR, m: number, adjoint = false): Promise<Float64Array> {
  const q = DArray.zeros([m, m], new Blocks(8, 8), {
    context: f.Q.context,
    dtype: 'complex128',
  });
  await porgqr(f, q, { adjoint });
  return (await q.collect()).data as Float64Array;
}

/** R upper triangular with a real diagonal; Q and R the plain reference's up to R's row signs. */
function expectLikePlain(
  a: Float64Array,
  m: number,
  n: number,
  q: ArrayLike<number>,
  r: ArrayLike<number>,
): void {
  const k = Math.min(m, n);
  expectComplexTriu(k, n, r);
  const want = cqrPlain(a, m, n);
  const s = Array.from({ length: k }, (_, i) =>
    Math.sign(r[2 * (i + i * k)]) === Math.sign(want.r[2 * (i + i * k)]) ? 1 : -1,
  );
  const qs = Float64Array.from(q, (x, at) => x * s[Math.floor(at / (2 * m))]);
  const rs = Float64Array.from(r, (x, at) => x * s[Math.floor(at / 2) % k]);
  expect(maxDiff(qs, want.q)).toBeLessThanOrEqual(1e-10);
  expect(maxDiff(rs, want.r)).toBeLessThanOrEqual(1e-10);
}

/** A random complex `m × n` as a complex128 DArray in `BS` blocks. */
function crandom(context: Context, m: number, n: number, seed: number) {
  const a = random(2 * m * n, seed);
  return { a, da: distribute(a, [m, n], new Blocks(...BS), { context, dtype: 'complex128' }) };
}

/** A random complex `M × N` factored in place by CAQR with `p` domains, and its full Q. */
interface Factored {
  /** The matrix's values, interleaved. */
  a: Float64Array;
  /** The array `qrInPlace` factored: packed `R` and reflectors. */
  da: DArray;
  /** The factorization. */
  f: QR;
  /** The full complex `M × M` Q (`fullQ`). */
  q: Float64Array;
}

describeOnRigs('on %s', (rig) => {
  // The `M × N` factorizations the tests only read (the packed factors, Q as an operator),
  // made once per rig and p.
  const factored = new Map<number, Promise<Factored>>();
  const factorOnce = (p: number): Promise<Factored> => {
    let made = factored.get(p);
    if (made === undefined) {
      made = (async () => {
        const { a, da } = crandom(rig.context, M, N, 100 + p);
        const f = await qrInPlace(da, { p, tile: TILE });
        return { a, da, f, q: await fullQ(f, M) };
      })();
      factored.set(p, made);
    }
    return made;
  };

  it('qr.jl: CAQR p=2, p=4: ComplexF64 (qr!(A; p), 37×23, tile 5)', async () => {
    for (const p of [2, 4]) {
      const { a, da, f, q } = await factorOnce(p);
      const r = ctriu((await da.collect()).data, M, N);
      const [res1, res2] = residuals(a, q, r, [M, M, N], N, EPS64);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
      expectLikePlain(a, M, N, (await f.Q.collect()).data, (await f.R.collect()).data);
      // the least-squares solve replays the same reflectors
      const xTrue = random(2 * N, 3);
      const x = await f.solve(cmatmul(a, xTrue, M, N, 1));
      expect(maxDiff(x, xTrue)).toBeLessThanOrEqual(1e-8);
    }
  }, 120_000);

  it('qr.jl: CAQR pormqr! p side=L/R trans=N/C: ComplexF64', async () => {
    const { context } = rig;
    const m = M;
    for (const p of [2, 4]) {
      // 37 × 37, tile 5: 8 tile rows (40 padded)
      const { da } = crandom(context, m, m, 200 + p);
      const f = await qr(da, { p, tile: TILE });
      const q = await fullQ(f, m);
      for (const side of ['L', 'R'] as const) {
        for (const trans of ['N', 'C'] as const) {
          const qq = trans === 'N' ? q : cadjoint(q, m, m);
          const [rows, cols] = side === 'L' ? [m, 9] : [9, m];
          const c = random(2 * rows * cols, rows + (trans === 'N' ? 1 : 2));
          const dc = distribute(c, [rows, cols], new Blocks(8, 8), {
            context,
            dtype: 'complex128',
          });
          expect(await pormqr(side, trans, f, dc)).toBe(dc);
          const want = side === 'L' ? cmatmul(qq, c, m, m, 9) : cmatmul(c, qq, 9, m, m);
          const got = (await dc.collect()).data;
          const diff = Float64Array.from(want, (w, i) => got[i] - w);
          const res = copnorm1(diff, rows, cols) / (copnorm1(want, rows, cols) * m * EPS64);
          expect(res).toBeLessThan(2);
        }
      }
    }
  }, 120_000);

  it('qr.jl: CAQR lmul!/rmul! p=2, p=4: ComplexF64 (DMatrix targets)', async () => {
    const { context } = rig;
    for (const p of [2, 4]) {
      const { f, q } = await factorOnce(p);
      for (const adjoint of [false, true]) {
        const qq = adjoint ? cadjoint(q, M, M) : q;
        const o = { context, dtype: 'complex128' as const };
        const b = random(2 * M * 7, 7);
        const db = distribute(b, [M, 7], new Blocks(8, 4), o);
        await f.lmulQ(db, { adjoint });
        expect(maxDiff((await db.collect()).data, cmatmul(qq, b, M, M, 7))).toBeLessThan(1e-12);
        const c = random(2 * 7 * M, 8);
        const dc = distribute(c, [7, M], new Blocks(4, 8), o);
        await f.rmulQ(dc, { adjoint });
        expect(maxDiff((await dc.collect()).data, cmatmul(c, qq, 7, M, M))).toBeLessThan(1e-12);
      }
    }
  }, 120_000);

  it('qr.jl: CAQR p=mt: ComplexF64 (37×5 in tiles of 5, one tile per domain)', async () => {
    const { a, da } = crandom(rig.context, M, 5, 600);
    const f = await qrInPlace(da, { p: 8, tile: TILE });
    const q = await fullQ(f, M);
    const r = ctriu((await da.collect()).data, M, 5);
    const [res1, res2] = residuals(a, q, r, [M, M, 5], M, EPS64);
    expect(res1).toBeLessThan(2);
    expect(res2).toBeLessThan(2);
    expectLikePlain(a, M, 5, (await f.Q.collect()).data, (await f.R.collect()).data);
  }, 120_000);

  it('qr.jl: CAQR porgqr! direct p=2, p=4 trans=N/C: ComplexF64', async () => {
    for (const p of [2, 4]) {
      const { a, da, f } = await factorOnce(p);
      for (const adjoint of [false, true]) {
        const q = await fullQ(f, M, adjoint);
        if (!adjoint) {
          const r = ctriu((await da.collect()).data, M, N);
          expect(residuals(a, q, r, [M, M, N], N, EPS64)[0]).toBeLessThan(2);
        }
        // Q'·Q ≈ I either way (Qᴴ of a unitary Q is unitary)
        const qh = adjoint ? cadjoint(q, M, M) : q;
        expect(residuals(a, qh, new Float64Array(2 * M * N), [M, M, N], N, EPS64)[1]).toBeLessThan(
          2,
        );
      }
    }
  }, 120_000);

  it('qr.jl: cageqrf! direct p=2, p=4: ComplexF64', async () => {
    for (const p of [2, 4]) {
      const { a, da } = crandom(rig.context, M, N, 800 + p);
      const f = await cageqrf(da, { p, tile: TILE });
      expect(da.dtype).toBe('complex128');
      const q = await fullQ(f, M);
      const r = ctriu((await da.collect()).data, M, N);
      const [res1, res2] = residuals(a, q, r, [M, M, N], M, EPS64);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
    }
  }, 120_000);

  it('qr.jl: geqrf! + porgqr!: ComplexF64 (flat tile QR)', async () => {
    const { a, da } = crandom(rig.context, M, N, 900);
    const f = await geqrf(da, { tile: TILE });
    const q = await fullQ(f, M);
    const r = ctriu((await da.collect()).data, M, N);
    const [res1, res2] = residuals(a, q, r, [M, M, N], M, EPS64);
    expect(res1).toBeLessThan(2);
    expect(res2).toBeLessThan(2);
    expectLikePlain(a, M, N, (await f.Q.collect()).data, (await f.R.collect()).data);
  }, 120_000);

  it('qr.jl: CAQR single-precision p=2, p=4: ComplexF32', async () => {
    for (const p of [2, 4]) {
      const a = Float64Array.from(Float32Array.from(random(2 * M * N, 400 + p)));
      const da = distribute(a, [M, N], new Blocks(...BS), {
        context: rig.context,
        dtype: 'complex64',
      });
      const f = await qrInPlace(da, { p, tile: TILE });
      expect(da.dtype).toBe('complex64');
      const q = Float64Array.from(Float32Array.from(await fullQ(f, M)));
      const r = ctriu((await da.collect()).data, M, N);
      const [res1, res2] = residuals(a, q, r, [M, M, N], N, EPS32);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
    }
  }, 120_000);
});

describe('complex CAQR steps and misuse', () => {
  it('runs a complex task per tile step through datadeps; a real q for a complex Q is a DtypeError', async () => {
    await using ctx = await threadsRig();
    const { da } = crandom(ctx, 20, 10, 5);
    enableLogging();
    let f: QR;
    try {
      fetchLogs();
      f = await qr(da, { p: 2, tile: 5 });
      const starts = fetchLogs().filter((e) => e.kind === 'start');
      const count = (name: string) => starts.filter((e) => e.name === name).length;
      // 4 × 2 tiles in 2 domains: as for a real matrix, 4 geqrt, 3 tsqrt, 2 ttqrt
      expect([count('geqrt'), count('tsqrt'), count('ttqrt')]).toEqual([4, 3, 2]);
    } finally {
      disableLogging();
    }
    expect(f.Q.dtype).toBe('complex128');
    const q = DArray.zeros([20, 20], new Blocks(5, 5), { context: ctx });
    await expect(porgqr(f, q)).rejects.toThrow(DtypeError);
  }, 30_000);
});

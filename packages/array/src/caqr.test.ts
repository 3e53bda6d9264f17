// Dagger's test/array/linalg/qr.jl, its communication-avoiding (CAQR, `p > 1`) testsets and
// the workspace-level calls, ported (Float64, and Float32 where Dagger runs single precision):
// Dagger's residuals (‖A − Q·R‖₁ and ‖I − QᵀQ‖₁ within 2 units of roundoff, scaled as Dagger
// scales them), and Q and R against a plain unblocked Householder QR (up to the signs of R's
// rows, which a different order of reflections may flip) on random inputs, odd sizes, several
// blockings and tiles, on 2 real worker threads and on 2 real worker processes (those run the
// built dist: build first).
import { ArgumentError, disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import {
  gramMinusIdentity,
  opnorm1,
  productMinus,
  qrPlain,
} from './__fixtures__/linalg-reference.js';
import { expectClose, expectEntries, matmul, random, transpose } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest, threadsRig } from './__fixtures__/rig.js';
import { caqrSteps } from './caqr-kernels.js';
import {
  Blocks,
  cageqrf,
  DArray,
  distribute,
  geqrf,
  porgqr,
  pormqr,
  qr,
  qrInPlace,
} from './index.js';

const EPS64 = 2 ** -52;
const EPS32 = 2 ** -23;

/** `triu` of a column-major `m × n` matrix. */
function triu(x: ArrayLike<number>, m: number, n: number): Float64Array {
  const r = new Float64Array(m * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= Math.min(j, m - 1); i++) r[i + j * m] = x[i + j * m];
  return r;
}

/** Dagger's res1 = ‖A − Q·R‖₁ / (‖A‖₁·max(m, n)·eps) and res2 = ‖I − QᵀQ‖₁ / (c·eps). */
function residuals(
  a: ArrayLike<number>,
  q: ArrayLike<number>,
  r: ArrayLike<number>,
  [m, k, n]: [number, number, number],
  c: number,
  eps: number,
): [number, number] {
  const res1 =
    opnorm1(productMinus(q, r, a, m, k, n), m, n) / (opnorm1(a, m, n) * Math.max(m, n) * eps);
  const res2 = opnorm1(gramMinusIdentity(q, m, k), k, k) / (c * eps);
  return [res1, res2];
}

/** The full `m × m` Q of `f` through `porgqr` (Dagger's `collect(DMatrix(F.Q))`). */
async function fullQ(
  f: Awaited<ReturnType<typeof qr>>,
  m: number,
  bs: number,
): Promise<Float64Array> {
  const q = DArray.zeros([m, m], new Blocks(bs, bs), { context: f.Q.context });
  await porgqr(f, q);
  return (await q.collect()).data as Float64Array;
}

/** Q (thin) and R equal the plain reference's up to the signs of R's rows. */
function expectLikePlain(
  a: Float64Array,
  m: number,
  n: number,
  q: ArrayLike<number>,
  r: ArrayLike<number>,
): void {
  const k = Math.min(m, n);
  const want = qrPlain(a, m, n);
  const s = Array.from({ length: k }, (_, i) =>
    Math.sign(r[i + i * k]) === Math.sign(want.r[i + i * k]) ? 1 : -1,
  );
  expectClose(
    Float64Array.from(q, (x, at) => x * s[Math.floor(at / m)]),
    want.q,
    1e-11,
  );
  expectClose(
    Float64Array.from(r, (x, at) => x * s[at % k]),
    want.r,
    1e-11,
  );
}

/** A random `m × n` in 32×32 blocks factored in place by CAQR with `p` domains, and its full Q. */
interface Factored {
  /** The matrix's values. */
  a: Float64Array;
  /** The array `qrInPlace` factored: packed `R` and reflectors. */
  da: DArray;
  /** The factorization. */
  f: Awaited<ReturnType<typeof qrInPlace>>;
  /** The full `m × m` Q (`fullQ`). */
  q: Float64Array;
}

describeOnRigs('on %s', (rig) => {
  // The factorizations the tests only read (Q as an operator, the packed factors, the least
  // squares), made once per rig, shape and p: each is 200–500 tasks, most of them moving data.
  const factored = new Map<string, Promise<Factored>>();
  const factorOnce = (m: number, n: number, p: number, seed: number): Promise<Factored> => {
    const key = `${m}x${n} p=${p}`;
    let made = factored.get(key);
    if (made === undefined) {
      made = (async () => {
        const a = random(m * n, seed);
        const da = distribute(a, [m, n], new Blocks(32, 32), { context: rig.context });
        const f = await qrInPlace(da, { p });
        return { a, da, f, q: await fullQ(f, m, 32) };
      })();
      factored.set(key, made);
    }
    return made;
  };
  /** The shared 128×64 factorization with `p` domains. */
  const tall = (p: number) => factorOnce(128, 64, p, 100 + p);
  /** The shared 128×128 factorization with `p` domains. */
  const square = (p: number) => factorOnce(128, 128, p, 200 + p);

  it('qr.jl: CAQR p=2, p=4: Float64 (qr!(A; p), 128×64 in 32×32 blocks)', async () => {
    for (const p of [2, 4]) {
      const [m, n] = [128, 64];
      const { a, da, f, q } = await tall(p);
      const r = triu((await da.collect()).data, m, n);
      const [res1, res2] = residuals(a, q, r, [m, m, n], n, EPS64);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
      // the thin factors against the plain reference; R upper triangular
      const thinR = (await f.R.collect()).data;
      expectEntries(
        n,
        n,
        (i, j) => i > j,
        (i, j) => thinR[i + j * n],
      );
      expectLikePlain(a, m, n, (await f.Q.collect()).data, thinR);
    }
  }, 120_000);

  it('qr.jl: CAQR pormqr! p side=L/R trans=N/T: Float64', async () => {
    const { context } = rig;
    for (const p of [2, 4]) {
      const { f, q } = await square(p);
      for (const side of ['L', 'R'] as const) {
        for (const trans of ['N', 'T'] as const) {
          const qq = trans === 'N' ? q : transpose(q, 128, 128);
          const [rows, cols] = side === 'L' ? [128, 64] : [64, 128];
          const c = random(rows * cols, rows + (trans === 'N' ? 1 : 2));
          const dc = distribute(c, [rows, cols], new Blocks(32, 32), { context });
          expect(await pormqr(side, trans, f, dc)).toBe(dc);
          const want = side === 'L' ? matmul(qq, c, 128, 128, 64) : matmul(c, qq, 64, 128, 128);
          const got = (await dc.collect()).data;
          const diff = Float64Array.from(want, (w, i) => got[i] - w);
          const res = opnorm1(diff, rows, cols) / (opnorm1(want, rows, cols) * 128 * EPS64);
          expect(res).toBeLessThan(2);
        }
      }
    }
  }, 120_000);

  it('qr.jl: CAQR lmul!/rmul! p=2, p=4: Float64 (DMatrix targets)', async () => {
    const { context } = rig;
    for (const p of [2, 4]) {
      const { f, q } = await square(p);
      for (const adjoint of [false, true]) {
        const qq = adjoint ? transpose(q, 128, 128) : q;
        const b = random(128 * 64, 7);
        const db = distribute(b, [128, 64], new Blocks(32, 32), { context });
        await f.lmulQ(db, { adjoint });
        expectClose((await db.collect()).data, matmul(qq, b, 128, 128, 64), 1e-10);
        const c = random(64 * 128, 8);
        const dc = distribute(c, [64, 128], new Blocks(32, 32), { context });
        await f.rmulQ(dc, { adjoint });
        expectClose((await dc.collect()).data, matmul(c, qq, 64, 128, 128), 1e-10);
      }
    }
  }, 120_000);

  it('qr.jl: CAQR single-precision p=2, p=4: Float32', async () => {
    for (const p of [2, 4]) {
      const [m, n] = [128, 64];
      const a = Float64Array.from(Float32Array.from(random(m * n, 400 + p)));
      const da = distribute(a, [m, n], new Blocks(32, 32), {
        context: rig.context,
        dtype: 'float32',
      });
      const f = await qrInPlace(da, { p });
      expect(da.dtype).toBe('float32');
      const q = Float64Array.from(Float32Array.from(await fullQ(f, m, 32)));
      const r = triu((await da.collect()).data, m, n);
      const [res1, res2] = residuals(a, q, r, [m, m, n], n, EPS32);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
    }
  }, 120_000);

  it('qr.jl: CAQR shapes p=2, p=4 (Square 128×128): Float64', async () => {
    for (const p of [2, 4]) {
      const { a, da, q } = await square(p);
      const r = triu((await da.collect()).data, 128, 128);
      const [res1, res2] = residuals(a, q, r, [128, 128, 128], 128, EPS64);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
    }
  }, 120_000);

  it('qr.jl: CAQR p=mt: Float64 (128×32, one tile per domain)', async () => {
    const a = random(128 * 32, 600);
    const da = distribute(a, [128, 32], new Blocks(32, 32), { context: rig.context });
    const p = da.grid[0];
    expect(p).toBe(4);
    const f = await qrInPlace(da, { p });
    const q = await fullQ(f, 128, 32);
    const r = triu((await da.collect()).data, 128, 32);
    const [res1, res2] = residuals(a, q, r, [128, 128, 32], 32, EPS64);
    expect(res1).toBeLessThan(2);
    expect(res2).toBeLessThan(2);
  }, 120_000);

  it('qr.jl: CAQR porgqr! direct p=2, p=4 trans=N/T: Float64', async () => {
    for (const p of [2, 4]) {
      const { a, da, f } = await tall(p);
      for (const adjoint of [false, true]) {
        const dq = DArray.zeros([128, 128], new Blocks(32, 32), { context: rig.context });
        await porgqr(f, dq, { adjoint });
        const q = (await dq.collect()).data;
        if (!adjoint) {
          const r = triu((await da.collect()).data, 128, 64);
          expect(residuals(a, q, r, [128, 128, 64], 64, EPS64)[0]).toBeLessThan(2);
        }
        // Q'·Q ≈ I either way (Q' of an orthogonal Q is orthogonal)
        const qt = adjoint ? transpose(q, 128, 128) : q;
        expect(opnorm1(gramMinusIdentity(qt, 128, 128), 128, 128) / (64 * EPS64)).toBeLessThan(2);
      }
    }
  }, 120_000);

  it('qr.jl: cageqrf! direct p=2, p=4 and geqrf! + porgqr!: Float64', async () => {
    for (const p of [1, 2, 4]) {
      const a = random(128 * 64, 800 + p);
      const da = distribute(a, [128, 64], new Blocks(32, 32), { context: rig.context });
      const f = p === 1 ? await geqrf(da) : await cageqrf(da, { p });
      const q = await fullQ(f, 128, 32);
      const r = triu((await da.collect()).data, 128, 64);
      const [res1, res2] = residuals(a, q, r, [128, 128, 64], 128, EPS64);
      expect(res1).toBeLessThan(2);
      expect(res2).toBeLessThan(2);
    }
  }, 120_000);

  it('qr.jl: CAQR least-squares p=2, p=4: Float64', async () => {
    const [m, n] = [128, 64];
    for (const p of [2, 4]) {
      const { a, da, f, q } = await tall(p);
      const xTrue = random(n, 901);
      const b = matmul(a, xTrue, m, n, 1);
      // Dagger's: R[1:n, 1:n] \ (Q'·b)[1:n]
      const qtb = matmul(transpose(q, m, m), b, m, m, 1);
      const packed = (await da.collect()).data;
      const x = new Float64Array(n);
      for (let i = n - 1; i >= 0; i--) {
        let s = qtb[i];
        for (let j = i + 1; j < n; j++) s -= packed[i + j * m] * x[j];
        x[i] = s / packed[i + i * m];
      }
      expectClose(x, xTrue, 1e-8);
      expectClose(await f.solve(b), xTrue, 1e-8);
    }
  }, 120_000);

  it('CAQR on odd sizes, uneven blocks, tiles and every p dividing the tile rows', async () => {
    for (const [m, n, bs, tile, ps] of [
      [37, 23, [8, 6], 5, [2, 4, 8]],
      [23, 37, [7, 9], 6, [2, 4]],
      [50, 50, [16, 7], 7, [2, 4, 8]],
      [41, 5, [41, 5], 3, [7, 14]],
    ] as [number, number, [number, number], number, number[]][]) {
      const a = random(m * n, m * 7 + n);
      for (const p of ps) {
        const f = await qr(distribute(a, [m, n], new Blocks(...bs), { context: rig.context }), {
          p,
          tile,
        });
        const k = Math.min(m, n);
        const q = (await f.Q.collect()).data;
        const r = (await f.R.collect()).data;
        const [res1, res2] = residuals(a, q, r, [m, k, n], Math.max(k, 1), EPS64);
        expect(res1).toBeLessThan(2);
        expect(res2).toBeLessThan(2);
        expectLikePlain(a, m, n, q, r);
        if (m >= n)
          expectClose(await f.solve(matmul(a, random(n, 3), m, n, 1)), random(n, 3), 1e-8);
      }
    }
  }, 240_000);
});

describe('CAQR misuse and steps', () => {
  it('qr.jl: cageqrf! rejects irregular tiling (100×60 in 30×20 blocks, p=2)', async () => {
    const ctx = await rigForTest();
    const a = distribute(random(6000, 1), [100, 60], new Blocks(30, 20), { context: ctx });
    // the tile is 20 (the smaller block side): 5 tile rows, which 2 domains do not divide
    await expect(cageqrf(a, { p: 2 })).rejects.toThrow(ArgumentError);
    await expect(qrInPlace(a, { p: 2 })).rejects.toThrow(
      /p = 2 domains must divide the 5 tile rows/,
    );
    await expect(qr(a, { p: 0 })).rejects.toThrow(/positive integer/);
    await expect(qr(a, { p: 1.5 })).rejects.toThrow(ArgumentError);
    const f = await qr(a, { p: 5 });
    await expect(
      porgqr(f, DArray.zeros([99, 99], new Blocks(33, 33), { context: ctx })),
    ).rejects.toThrow(/100 rows/);
    await expect(
      porgqr(f, DArray.zeros([100, 101], new Blocks(50, 50), { context: ctx })),
    ).rejects.toThrow(/more columns/);
    await expect(pormqr('X' as never, 'N', f, a)).rejects.toThrow(/side must be 'L' or 'R'/);
    await expect(pormqr('L', 'N', {} as never, a)).rejects.toHaveProperty(
      'code',
      ArgumentError.code,
    );
  }, 30_000);

  it('runs a task per tile step through datadeps, the domains on both worker threads', async () => {
    await using ctx = await threadsRig();
    const a = distribute(random(128 * 64, 5), [128, 64], new Blocks(32, 32), { context: ctx });
    enableLogging();
    try {
      fetchLogs();
      await qr(a, { p: 2 });
      const starts = fetchLogs().filter((e) => e.kind === 'start');
      const count = (name: string) => starts.filter((e) => e.name === name).length;
      // 4 × 2 tiles, 2 domains of 2 tile rows: column 0 factors both domains' tops (2 geqrt,
      // 2 tsqrt) and merges them (1 ttqrt); column 1 the same below the diagonal (2, 1, 1).
      expect([count('geqrt'), count('tsqrt'), count('ttqrt')]).toEqual([4, 3, 2]);
      expect(count('unmqr') + count('tsmqr') + count('ttmqr')).toBeGreaterThan(0);
      const tiles = starts.filter((e) => ['geqrt', 'tsqrt', 'ttqrt'].includes(e.name ?? ''));
      expect(new Set(tiles.map((e) => e.processor))).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    } finally {
      disableLogging();
    }
  }, 30_000);

  it("the steps are Dagger's: flat tile QR for p = 1, a binary tree of triangle merges for p > 1", () => {
    const at = (steps: number[]) =>
      Array.from({ length: steps.length / 4 }, (_, s) => steps.slice(4 * s, 4 * s + 4).join(' '));
    // kinds: 0 geqrt, 1 tsqrt, 2 ttqrt; then i1 i2 k
    expect(at(caqrSteps(3, 2, 1))).toEqual(['0 0 0 0', '1 0 1 0', '1 0 2 0', '0 1 1 1', '1 1 2 1']);
    expect(at(caqrSteps(4, 1, 4))).toEqual([
      '0 0 0 0',
      '0 1 1 0',
      '0 2 2 0',
      '0 3 3 0',
      '2 0 1 0',
      '2 2 3 0',
      '2 0 2 0',
    ]);
    // column 2 of 4 tile rows in 2 domains: the first domain is done, the second's top is row 2
    expect(at(caqrSteps(4, 4, 2)).filter((s) => s.endsWith(' 2'))).toEqual(['0 2 2 2', '1 2 3 2']);
  });
});

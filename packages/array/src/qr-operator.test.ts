// Dagger's test/array/linalg/qr.jl, the testsets of `Q` as an operator, ported (Float64):
// "pormqr! side trans", "lmul!/rmul!" (DMatrix and dense targets), "Scalar * Q",
// "DMatrix(Q) / DMatrix(Q')" and "collect(Q) / collect(Q')", against products with the
// collected `Q` in plain JavaScript, on odd sizes and several blockings, on 2 real worker
// threads and on 2 real worker processes (those run the built dist: build first).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { gramMinusIdentity, opnorm1 } from './__fixtures__/linalg-reference.js';
import { expectClose, matmul, random, transpose } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute, qr } from './index.js';

const EPS = 2 ** -52;

/** Dagger's residual: ‖got − want‖₁ / (‖want‖₁ · max(size) · eps). */
function residual(got: ArrayLike<number>, want: ArrayLike<number>, m: number, n: number): number {
  const d = Float64Array.from(want, (w, i) => got[i] - w);
  return opnorm1(d, m, n) / (opnorm1(want, m, n) * Math.max(m, n) * EPS);
}

describeOnRigs('on %s', (rig) => {
  it('qr.jl: pormqr! side=L/R trans=N/T and lmul!/rmul! on DMatrix targets: Float64', async () => {
    const { context } = rig;
    for (const [n, bs, cb] of [
      [128, 32, [32, 32]],
      [37, 8, [5, 7]],
    ] as const) {
      const a = random(n * n, n + 1);
      const f = await qr(distribute(a, [n, n], new Blocks(bs, bs), { context }));
      const q = (await f.Q.collect()).data;
      const qt = transpose(q, n, n);
      const w = Math.max(1, n >> 1);
      for (const adjoint of [false, true]) {
        const qq = adjoint ? qt : q;
        // side 'L': Q·C or Q'·C, C n × w
        const c = random(n * w, w + (adjoint ? 1 : 0));
        const dc = distribute(c, [n, w], new Blocks(cb[0], cb[1]), { context });
        expect(await f.lmulQ(dc, { adjoint })).toBe(dc);
        expect(dc.blocks.sizes).toEqual(cb);
        const left = matmul(qq, c, n, n, w);
        expect(residual((await dc.collect()).data, left, n, w)).toBeLessThan(2);
        // side 'R': C·Q or C·Q', C w × n
        const r = random(w * n, n + (adjoint ? 3 : 2));
        const dr = distribute(r, [w, n], new Blocks(cb[1], cb[0]), { context });
        await f.rmulQ(dr, { adjoint });
        const right = matmul(r, qq, w, n, n);
        expect(residual((await dr.collect()).data, right, w, n)).toBeLessThan(2);
        // a vector, Q·x
        const x = random(n, 5);
        const dx = distribute(x, [n], new Blocks(cb[0]), { context });
        await f.lmulQ(dx, { adjoint });
        expectClose((await dx.collect()).data, matmul(qq, x, n, n, 1), 1e-12);
      }
    }
  }, 120_000);

  it('qr.jl: lmul!/rmul! on dense targets (a caller array written in place): Float64', async () => {
    const n = 64;
    const a = random(n * n, 4);
    const f = await qr(distribute(a, [n, n], new Blocks(32, 32), { context: rig.context }));
    const q = (await f.Q.collect()).data;
    for (const adjoint of [false, true]) {
      const qq = adjoint ? transpose(q, n, n) : q;
      const b = { data: random(n * 32, 8), shape: [n, 32] };
      const before = Float64Array.from(b.data);
      expect(await f.lmulQ(b, { adjoint })).toBe(b);
      expectClose(b.data, matmul(qq, before, n, n, 32), 1e-12);
      const c = { data: random(32 * n, 9), shape: [32, n] };
      const c0 = Float64Array.from(c.data);
      await f.rmulQ(c, { adjoint });
      expectClose(c.data, matmul(c0, qq, 32, n, n), 1e-12);
      const v = random(n, 10);
      const v0 = Float64Array.from(v);
      await f.lmulQ(v, { adjoint });
      expectClose(v, matmul(qq, v0, n, n, 1), 1e-12);
    }
  }, 120_000);

  it('qr.jl: the full Q of a tall A (lmul! of I): its first columns are F.Q, orthogonal', async () => {
    for (const [m, n, bs] of [
      [128, 64, [32, 32]],
      [41, 13, [9, 4]],
    ] as const) {
      const a = random(m * n, m);
      const f = await qr(distribute(a, [m, n], new Blocks(bs[0], bs[1]), { context: rig.context }));
      const eye = DArray.zeros([m, m], new Blocks(bs[0], bs[0]), { context: rig.context });
      for (let i = 0; i < m; i++) eye.set([i, i], 1);
      const full = (await (await f.lmulQ(eye)).collect()).data;
      expect(opnorm1(gramMinusIdentity(full, m, m), m, m) / (m * EPS)).toBeLessThan(2);
      expectClose(full.subarray(0, m * n), (await f.Q.collect()).data, 1e-12);
      // Qᵀ·(Q·B) = B
      const b = random(m * 3, 2);
      const db = distribute(b, [m, 3], new Blocks(bs[0], 2), { context: rig.context });
      await f.lmulQ(db);
      await f.lmulQ(db, { adjoint: true });
      expectClose((await db.collect()).data, b, 1e-12);
    }
  }, 120_000);

  it("qr.jl: Scalar * Q, DMatrix(Q) / DMatrix(Q') and collect(Q) / collect(Q'): Float64", async () => {
    const { context } = rig;
    // Scalar * Q (64², blocks 32): Q*s, s*Q, Q'*s, s*Q'
    const a = random(64 * 64, 12);
    const f = await qr(distribute(a, [64, 64], new Blocks(32, 32), { context }));
    const q = (await f.Q.collect()).data;
    const q3 = Float64Array.from(q, (x) => x * 3);
    expectClose((await f.Q.mul(3).collect()).data, q3, 0);
    expectClose((await f.Q.transpose().mul(3).collect()).data, transpose(q3, 64, 64), 0);
    // collect(Q) has A's size; collect(Q') is its transpose
    expect(f.Q.shape).toEqual([64, 64]);
    expectClose((await f.Q.transpose().collect()).data, transpose(q, 64, 64), 0);
    // DMatrix(Q) of a tall A: orthonormal columns; DMatrix(Q') its adjoint
    const t = random(128 * 64, 13);
    const g = await qr(distribute(t, [128, 64], new Blocks(32, 32), { context }));
    const gq = (await g.Q.collect()).data;
    expect(opnorm1(gramMinusIdentity(gq, 128, 64), 64, 64) / (64 * EPS)).toBeLessThan(2);
    expectClose((await g.Q.transpose().collect()).data, transpose(gq, 128, 64), 0);
  }, 120_000);
});

describe('Q as an operator: misuse', () => {
  it('a b without A’s rows (or columns), a bad adjoint or a non-array are ArgumentErrors', async () => {
    const ctx = await rigForTest();
    const f = await qr(DArray.rand([6, 4], new Blocks(3, 2), { context: ctx, seed: 1 }));
    const wrong = DArray.rand([5, 2], new Blocks(5, 2), { context: ctx });
    await expect(f.lmulQ(wrong)).rejects.toThrow(/A's 6 rows/);
    await expect(f.rmulQ(wrong)).rejects.toThrow(/A's 6 columns/);
    await expect(f.rmulQ(DArray.rand([6], new Blocks(3), { context: ctx }))).rejects.toThrow(
      ArgumentError,
    );
    const ok = DArray.rand([6, 2], new Blocks(3, 2), { context: ctx });
    await expect(f.lmulQ(ok, { adjoint: 'yes' as never })).rejects.toThrow(/boolean/);
    await expect(f.lmulQ([1, 2, 3] as never)).rejects.toHaveProperty('code', ArgumentError.code);
    await expect(f.lmulQ({ data: [1], shape: [1] } as never)).rejects.toThrow(/Float64Array/);
  }, 30_000);
});

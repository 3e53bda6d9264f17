// Dagger's test/array/linalg/matmul.jl, ported ("With/Without Transpose", "GEMM", "GEMV";
// Float64): DArray products, transposed operands and matrix × vector against a plain
// single-threaded product on random inputs and Dagger's sizes and blockings, on 2 real worker
// threads and on 2 real worker processes (those run the built dist: build first). Operands
// blocked unlike each other multiply as Dagger's do (`matmul` re-blocks the right one's rows).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, matmul, random, transpose } from './__fixtures__/reference.js';
import { describeOnRigs, rigForTest } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute, matpow } from './index.js';

describeOnRigs(
  'on %s',
  (rig) => {
    it('matmul.jl: With/Without Transpose', async () => {
      const x = random(40 * 40, 1);
      const xt = transpose(x, 40, 40);
      const x1 = distribute(x, [40, 40], new Blocks(10, 20), { context: rig.context });
      const tol = 1e-12;
      expectClose((await x1.transpose().matmul(x1).collect()).data, matmul(xt, x, 40, 40, 40), tol);
      expectClose((await x1.matmul(x1.transpose()).collect()).data, matmul(x, xt, 40, 40, 40), tol);
      expectClose((await x1.matmul(x1).collect()).data, matmul(x, x, 40, 40, 40), tol);
    }, 120_000);

    it('matmul.jl: Powers', async () => {
      // x = rand(Blocks(4,4), 16, 16): x^1 == x, x^2 == x*x, x^3 == x*x*x, to the bit
      const { context } = rig;
      const x = DArray.rand([16, 16], new Blocks(4, 4), { context, seed: 3 });
      const xs = (await x.collect()).data;
      expect(Array.from((await matpow(x, 1).collect()).data)).toEqual(Array.from(xs));
      const x2 = (await x.matmul(x).collect()).data;
      expect(Array.from((await matpow(x, 2).collect()).data)).toEqual(Array.from(x2));
      const x3 = (await x.matmul(x).matmul(x).collect()).data;
      expect(Array.from((await matpow(x, 3).collect()).data)).toEqual(Array.from(x3));
      expectClose(x3, matmul(matmul(xs, xs, 16, 16, 16), xs, 16, 16, 16), 1e-12);
      // odd sizes and blocks: 13×13 in 5×4 blocks, to the fourth power
      const y = random(13 * 13, 9);
      const dy = distribute(y, [13, 13], new Blocks(5, 4), { context });
      let want = y;
      for (let i = 1; i < 4; i++) want = matmul(want, y, 13, 13, 13);
      const y4 = matpow(dy, 4);
      expect(y4.blocks.sizes).toEqual([5, 4]);
      expectClose((await y4.collect()).data, want, 1e-12);
    }, 120_000);

    it('matmul with differing inner blockings (A column blocks ≠ B row blocks)', async () => {
      const { context } = rig;
      for (const [m, k, n, bs] of [
        [40, 40, 40, [10, 20, 10, 10]],
        [23, 17, 11, [5, 4, 3, 6]],
        [9, 31, 7, [9, 31, 8, 2]],
      ] as const) {
        const a = random(m * k, m + k);
        const b = random(k * n, k + n);
        const da = distribute(a, [m, k], new Blocks(bs[0], bs[1]), { context });
        const db = distribute(b, [k, n], new Blocks(bs[2], bs[3]), { context });
        const c = da.matmul(db);
        expect(c.blocks.sizes).toEqual([bs[0], bs[3]]);
        expectClose((await c.collect()).data, matmul(a, b, m, k, n), 1e-12);
        // matrix × vector with the vector blocked unlike A's columns
        const x = random(k, 2);
        const y = da.matmul(distribute(x, [k], new Blocks(bs[2]), { context }));
        expect(y.blocks.sizes).toEqual([bs[0]]);
        expectClose((await y.collect()).data, matmul(a, x, m, k, 1), 1e-12);
      }
    }, 120_000);

    it('matmul.jl: GEMM (Float64, Dagger sizes and partitionings)', async () => {
      for (const [rows, cols] of [
        [4, 4],
        [12, 12],
      ]) {
        const sizes = [
          [rows, cols],
          [rows / 2, cols],
          [rows, cols / 2],
        ];
        const parts = [
          [rows, cols],
          [rows / 2, cols],
          [rows, cols / 2],
        ];
        for (const [m, k] of sizes)
          for (const [p, q] of parts) {
            const a = random(m * k, m + k);
            const b = random(k * m, m * k);
            const da = distribute(a, [m, k], new Blocks(p, q), { context: rig.context });
            const db = distribute(b, [k, m], new Blocks(q, p), { context: rig.context });
            expectClose((await da.matmul(db).collect()).data, matmul(a, b, m, k, m));
            // transA, transB: A'·B' = (B·A)'
            const at = transpose(a, m, k);
            const bt = transpose(b, k, m);
            expectClose(
              (await da.transpose().matmul(db.transpose()).collect()).data,
              matmul(at, bt, k, m, k),
            );
          }
      }
    }, 120_000);

    it('matmul.jl: GEMV (Float64, Dagger sizes and partitionings), odd sizes too', async () => {
      for (const [m, k, p, q] of [
        [4, 4, 4, 4],
        [4, 2, 4, 2],
        [12, 12, 12, 12],
        [12, 6, 12, 6],
        [37, 23, 8, 5],
      ]) {
        const a = random(m * k, m * 7 + k);
        const x = random(k, k);
        const da = distribute(a, [m, k], new Blocks(p, q), { context: rig.context });
        const dx = distribute(x, [k], new Blocks(q), { context: rig.context });
        const y = da.matmul(dx);
        expect(y.shape).toEqual([m]);
        expect(y.blocks.sizes).toEqual([p]);
        expectClose((await y.collect()).data, matmul(a, x, m, k, 1));
        // A' * b with b of A's rows
        const b = random(m, 3);
        const db = distribute(b, [m], new Blocks(p), { context: rig.context });
        expectClose(
          (await da.transpose().matmul(db).collect()).data,
          matmul(transpose(a, m, k), b, k, m, 1),
        );
        // float32 and int32 vectors
        for (const dtype of ['float32', 'int32'] as const) {
          const ai = a.map((v) => Math.round(v * 10));
          const xi = x.map((v) => Math.round(v * 10));
          const da2 = distribute(ai, [m, k], new Blocks(p, q), { context: rig.context, dtype });
          const dx2 = distribute(xi, [k], new Blocks(q), { context: rig.context, dtype });
          const y2 = da2.matmul(dx2);
          expect(y2.dtype).toBe(dtype);
          expectClose((await y2.collect()).data, matmul(ai, xi, m, k, 1), 0);
        }
      }
    }, 120_000);
  },
  { closeTimeoutMs: 120_000 },
);

describe('matmul, matrix × vector and matpow misuse', () => {
  it('a vector of the wrong length or another dtype, a bad power, are ArgumentErrors', async () => {
    const ctx = await rigForTest();
    const a = DArray.rand([6, 4], new Blocks(3, 2), { context: ctx });
    for (const x of [
      DArray.rand([5], new Blocks(5), { context: ctx }),
      DArray.rand([4], new Blocks(2), { context: ctx, dtype: 'float32' }),
    ]) {
      expect(() => a.matmul(x)).toThrow(ArgumentError);
      expect(() => a.matmul(x)).toThrow(/\[m, k\]·\[k\] of one dtype/);
    }
    const b32 = DArray.rand([4, 3], new Blocks(3, 3), { context: ctx, dtype: 'float32' });
    expect(() => a.matmul(b32)).toThrow(/of one dtype/);
    expect(() => matpow(a, 2)).toThrow(/square 2-D DArray; got \[6, 4\]/);
    const sq = DArray.rand([4, 4], new Blocks(2, 2), { context: ctx });
    for (const p of [0, -1, 1.5, Number.NaN, '2' as never]) {
      expect(() => matpow(sq, p)).toThrow(ArgumentError);
      expect(() => matpow(sq, p)).toThrow(/positive integer/);
    }
  });
});

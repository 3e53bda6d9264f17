// Dagger's test/array/linalg/matmul.jl, ported ("With/Without Transpose", "GEMM", "GEMV";
// Float64): DArray products, transposed operands and matrix × vector against a plain
// single-threaded product on random inputs and Dagger's sizes and blockings, on 2 real worker
// threads and on 2 real worker processes (those run the built dist: build first). Where Dagger
// multiplies operands blocked unlike each other, the port re-blocks one first (dtask's
// `matmul` asks for matching inner blocks).
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, matmul, random, transpose } from './__fixtures__/reference.js';
import { describeOnRigs, threadsRig } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute } from './index.js';

/** `a·b`, re-blocking `b`'s rows to `a`'s column blocks when they differ. */
function times(a: DArray, b: DArray): DArray {
  const inner = a.blocks.sizes[1];
  if (b.blocks.sizes[0] === inner) return a.matmul(b);
  const rest = b.shape.length === 2 ? [b.blocks.sizes[1]] : [];
  return a.matmul(b.reblock(new Blocks(inner, ...rest)));
}

describeOnRigs(
  'on %s',
  (rig) => {
    it('matmul.jl: With/Without Transpose', async () => {
      const x = random(40 * 40, 1);
      const xt = transpose(x, 40, 40);
      const x1 = distribute(x, [40, 40], new Blocks(10, 20), { context: rig.context });
      const tol = 1e-12;
      expectClose((await times(x1.transpose(), x1).collect()).data, matmul(xt, x, 40, 40, 40), tol);
      expectClose((await times(x1, x1.transpose()).collect()).data, matmul(x, xt, 40, 40, 40), tol);
      expectClose((await times(x1, x1).collect()).data, matmul(x, x, 40, 40, 40), tol);
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
            expectClose((await times(da, db).collect()).data, matmul(a, b, m, k, m));
            // transA, transB: A'·B' = (B·A)'
            const at = transpose(a, m, k);
            const bt = transpose(b, k, m);
            expectClose(
              (await times(da.transpose(), db.transpose()).collect()).data,
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

describe('matrix × vector misuse', () => {
  it('a vector of the wrong length or blocking, or another dtype, is an ArgumentError', async () => {
    await using ctx = await threadsRig();
    const a = DArray.rand([6, 4], new Blocks(3, 2), { context: ctx });
    for (const x of [
      DArray.rand([5], new Blocks(5), { context: ctx }),
      DArray.rand([4], new Blocks(4), { context: ctx }),
      DArray.rand([4], new Blocks(2), { context: ctx, dtype: 'float32' }),
    ]) {
      expect(() => a.matmul(x)).toThrow(ArgumentError);
      expect(() => a.matmul(x)).toThrow(/\[m, k\]·\[k\].*reblock/);
    }
  });
});

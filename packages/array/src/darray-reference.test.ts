// On 2 real worker threads, DArray operations on arrays of odd sizes that
// do not divide evenly into blocks equal a plain single-threaded reference within 1e-10.
import { In, Out, spawnDatadeps, view } from '@dtask/datadeps';
import { sumArrayRow } from '@dtask/datadeps/examples';
import { describe, expect, it } from 'vitest';
import {
  choleskyPlain,
  expectClose,
  matmul,
  random,
  reduceDims,
  slice2,
  spd,
  transpose,
} from './__fixtures__/reference.js';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, cholesky, distribute } from './index.js';

const add = (p: number, v: number) => p + v;
const [M, K, N] = [37, 23, 29];

describe('DArray against a plain single-threaded reference (odd sizes, 2 threads)', () => {
  it("seed 002's row sums: In(view(A.chunks[i], j:j, :)) into Out(view(rowSums, r:r))", async () => {
    const ctx = await rigForTest();
    const [m, n, rows] = [11, 999, 3]; // 4 row blocks: 3, 3, 3 and 2 rows
    const x = random(m * n, 1);
    const A = distribute(x, [m, n], new Blocks(rows, n), { context: ctx });
    expect(A.grid).toEqual([4, 1]);
    const rowSums = new Float64Array(m);
    await spawnDatadeps(() => {
      for (let i = 0; i < A.grid[0]; i++) {
        for (let j = 0; j < Math.min(rows, m - i * rows); j++) {
          const r = i * rows + j;
          ctx.spawn(
            sumArrayRow,
            Out(view(rowSums, [r, r + 1])),
            In(view(A.chunk(i, 0), [j, j + 1], ':')),
          );
        }
      }
    });
    const want = reduceDims(x, [m, n], [1], add, 0);
    expectClose(rowSums, want);
    expectClose((await A.sum({ dims: [1] }).collect()).data, want);
  });

  it('map (one array and two), element-wise ops, broadcasting and re-blocking', async () => {
    const ctx = await rigForTest();
    const x = random(M * K, 2);
    const y = random(M * K, 3);
    const a = distribute(x, [M, K], new Blocks(8, 6), { context: ctx });
    const b = distribute(y, [M, K], new Blocks(8, 6), { context: ctx });
    expectClose(
      (await a.map((v) => Math.sin(v) * 2 + v * v).collect()).data,
      x.map((v) => Math.sin(v) * 2 + v * v),
    );
    expectClose(
      (await a.map((v, w) => v * w - 1, b).collect()).data,
      x.map((v, i) => v * y[i] - 1),
    );
    expectClose(
      (await a.add(b).mul(b).collect()).data,
      x.map((v, i) => (v + y[i]) * y[i]),
    );
    expectClose(
      (await a.sub(b).div(3).collect()).data,
      x.map((v, i) => (v - y[i]) / 3),
    );
    // Broadcast: subtract the column means (a 1×K array) from every row; scale rows by an M×1.
    const colMeans = reduceDims(x, [M, K], [0], add, 0).map((s) => s / M);
    const centred = await a.sub(a.mean({ dims: [0] })).collect();
    expect(centred.shape).toEqual([M, K]);
    expectClose(
      centred.data,
      x.map((v, i) => v - colMeans[Math.floor(i / M)]),
    );
    const w = random(M, 4);
    const scaled = await a.mul(distribute(w, [M, 1], new Blocks(5, 1), { context: ctx }), {
      reblock: true,
    });
    expectClose(
      (await scaled.collect()).data,
      x.map((v, i) => v * w[i % M]),
    );
    // Different blocks: ArgumentError unless asked to re-block.
    const c = distribute(y, [M, K], new Blocks(10, 4), { context: ctx });
    expect(() => a.add(c)).toThrow(/\[37, 23\] float64 in blocks \(8, 6\).*\(10, 4\)/);
    const sum = a.add(c, { reblock: true });
    expect(sum.blocks.sizes).toEqual([8, 6]);
    expectClose(
      (await sum.collect()).data,
      x.map((v, i) => v + y[i]),
    );
    const re = c.reblock(new Blocks(7, 9));
    expect(re.grid).toEqual([6, 3]);
    expectClose((await re.collect()).data, y);
    expect(re.reblock(new Blocks(7, 9))).toBe(re);
  });

  it('sum/mean/min/max/reduce over everything and per dimension', async () => {
    const ctx = await rigForTest();
    const x = random(M * K, 5);
    const a = distribute(x, [M, K], new Blocks(8, 6), { context: ctx });
    expect(Math.abs((await a.sum()) - x.reduce(add, 0))).toBeLessThan(1e-10);
    expect(Math.abs((await a.mean()) - x.reduce(add, 0) / x.length)).toBeLessThan(1e-10);
    expect(await a.min()).toBe(Math.min(...x));
    expect(await a.max()).toBe(Math.max(...x));
    expect(Math.abs((await a.reduce((p, v) => Math.hypot(p, v))) - Math.hypot(...x))).toBeLessThan(
      1e-10,
    );
    for (const dims of [[0], [1]]) {
      const shape = [M, K].map((s, d) => (dims.includes(d) ? 1 : s));
      const sums = await a.sum({ dims }).collect();
      expect(sums.shape).toEqual(shape);
      expectClose(sums.data, reduceDims(x, [M, K], dims, add, 0));
      const count = dims[0] === 0 ? M : K;
      expectClose(
        (await a.mean({ dims }).collect()).data,
        reduceDims(x, [M, K], dims, add, 0).map((s) => s / count),
      );
      expectClose(
        (await a.min({ dims }).collect()).data,
        reduceDims(x, [M, K], dims, Math.min, Number.POSITIVE_INFINITY),
      );
      expectClose(
        (await a.max({ dims }).collect()).data,
        reduceDims(x, [M, K], dims, Math.max, Number.NEGATIVE_INFINITY),
      );
      expectClose(
        (await a.reduce((p, v) => Math.hypot(p, v), { dims }).collect()).data,
        reduceDims(x, [M, K], dims, Math.hypot, 0),
      );
    }
  });

  it('blocked matmul, transpose and 0-based half-open slicing (with steps)', async () => {
    const ctx = await rigForTest();
    const x = random(M * K, 6);
    const y = random(K * N, 7);
    const a = distribute(x, [M, K], new Blocks(8, 6), { context: ctx });
    const b = distribute(y, [K, N], new Blocks(6, 7), { context: ctx });
    const c = await a.matmul(b).collect();
    expect(c.shape).toEqual([M, N]);
    expectClose(c.data, matmul(x, y, M, K, N));
    const t = a.transpose();
    expect(t.blocks.sizes).toEqual([6, 8]);
    expectClose((await t.collect()).data, transpose(x, M, K));
    // Aᵀ·A through the transposed array: a product of two derived arrays.
    expectClose((await t.matmul(a).collect()).data, matmul(transpose(x, M, K), x, K, M, K));
    const s = await a.slice([3, 30], [2, 21]).collect();
    expect(s.shape).toEqual([27, 19]);
    expectClose(s.data, slice2(x, M, [3, 30], [2, 21]));
    const stepped = await a.slice([5, 36, 4], [0, 23, 3]).collect();
    expect(stepped.shape).toEqual([8, 8]);
    expectClose(stepped.data, slice2(x, M, [5, 36, 4], [0, 23, 3]));
    expectClose((await a.slice(':', [22, 23]).collect()).data, x.slice(22 * M));
    expect((await a.slice([4, 4], ':').collect()).shape).toEqual([0, K]);
    expect(() => a.slice([0, 38], ':')).toThrow(/0 ≤ start, end ≤ 37.*\[37, 23\]/);
  });

  it('Cholesky through datadeps per tile, side 27 in blocks of 8 (padded to 32)', async () => {
    const ctx = await rigForTest();
    const n = 27;
    const x = spd(n, 8);
    const a = distribute(x, [n, n], new Blocks(8, 8), { context: ctx });
    const l = await cholesky(a);
    expect(l.blocks.sizes).toEqual([8, 8]);
    expect(l.grid).toEqual([4, 4]);
    expectClose((await l.collect()).data, choleskyPlain(x, n));
    // Non-square blocks: tiles of the smaller side.
    const l2 = await cholesky(distribute(x, [n, n], new Blocks(10, 6), { context: ctx }));
    expectClose((await l2.collect()).data, choleskyPlain(x, n));
  });

  it('3-D: sum, mean and max per dimension of a 7×5×9 array in 3×2×4 blocks', async () => {
    const ctx = await rigForTest();
    const shape = [7, 5, 9];
    const x = random(7 * 5 * 9, 9);
    const a = distribute(x, shape, new Blocks(3, 2, 4), { context: ctx });
    expect(a.grid).toEqual([3, 3, 3]);
    for (const dims of [[0], [1], [2], [0, 2], [1, 2], [0, 1, 2]]) {
      const got = await a.sum({ dims }).collect();
      expect(got.shape).toEqual(shape.map((s, d) => (dims.includes(d) ? 1 : s)));
      expectClose(got.data, reduceDims(x, shape, dims, add, 0));
    }
    expectClose(
      (await a.mean({ dims: [1] }).collect()).data,
      reduceDims(x, shape, [1], add, 0).map((s) => s / 5),
    );
    expectClose(
      (await a.max({ dims: [2] }).collect()).data,
      reduceDims(x, shape, [2], Math.max, Number.NEGATIVE_INFINITY),
    );
    // Element (i, j, k) is at i + 7·(j + 5·k): a slice of one element reads it.
    const one = await a.slice([4, 5], [3, 4], [6, 7]).collect();
    expect(one.data[0]).toBe(x[4 + 7 * (3 + 5 * 6)]);
  });
});

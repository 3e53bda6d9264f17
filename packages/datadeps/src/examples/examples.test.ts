import { type Context, type DTask, disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig, sharedF64 } from '../__fixtures__/harness.js';
import type { StridedView } from '../strided-view.js';
import {
  addInto,
  cholesky,
  choleskyError,
  choleskySerial,
  makeBlock,
  PosDefError,
  rowSums,
  spdMatrix,
  treeReduce,
} from './index.js';

const spawnOn = (ctx: Context) => ctx.spawn.bind(ctx) as (...a: any[]) => unknown;

describe('seed 002 examples on 2 worker threads', () => {
  it('tree_reduce! over 1,000 arrays of 1,000 equals the serial reduction', async () => {
    const { ctx } = await rig();
    const As = Array.from({ length: 1000 }, (_, a) =>
      sharedF64(1000, (i) => Math.sin(a * 1000 + i)),
    );
    const expected = new Float64Array(1000);
    for (const x of As) for (let i = 0; i < 1000; i++) expected[i] += x[i];
    const first = await treeReduce(addInto, As, spawnOn(ctx));
    expect(first).toBe(As[0]);
    for (let i = 0; i < 1000; i++) expect(first[i]).toBeCloseTo(expected[i], 9);
  });

  it('tree reduction of ordinary (non-shared) arrays: copied back after each task', async () => {
    const { ctx } = await rig();
    const As = Array.from({ length: 37 }, (_, a) =>
      Float64Array.from({ length: 50 }, (_, i) => a + i),
    );
    const expected = new Float64Array(50);
    for (const x of As) for (let i = 0; i < 50; i++) expected[i] += x[i];
    await treeReduce(addInto, As, spawnOn(ctx));
    expect([...As[0]]).toEqual([...expected]);
  });

  it('row sums through view(chunk, [j, j + 1], ":") into Out(view(sums, [r, r + 1]))', async () => {
    const { ctx } = await rig();
    const blocks = Array.from({ length: 5 }, (_, b) => ctx.spawn(makeBlock, b, 2, 1000));
    const sums = await rowSums(blocks as DTask<StridedView<Float64Array>>[], 2, spawnOn(ctx));
    const expected = Array.from({ length: 10 }, (_, r) => {
      let s = 0;
      for (let j = 0; j < 1000; j++) s += Math.sin(r * 1000 + j);
      return s;
    });
    expect(sums).toBeInstanceOf(Float64Array);
    for (let r = 0; r < 10; r++) expect(sums[r]).toBeCloseTo(expected[r], 9);
  });

  it('tiled Cholesky on a SharedArrayBuffer matrix: L·Lᵀ equals the input within 1e-8', async () => {
    const { ctx } = await rig();
    const a = spdMatrix(96, 7);
    const original = { ...a, data: a.data.slice() };
    enableLogging();
    try {
      await cholesky(a, 16, spawnOn(ctx));
    } finally {
      disableLogging();
    }
    expect(choleskyError(a, original)).toBeLessThan(1e-8);
    // 6 potrf + 15 trsm + 15 syrk + 20 gemm tasks, all on the worker threads.
    const starts = fetchLogs().filter((e) => e.kind === 'start');
    expect(starts.length).toBeGreaterThanOrEqual(56);
    expect(new Set(starts.map((e) => e.processor))).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    // The same as the serial tile code, bit for bit (the same operations in the same order).
    const serial = { ...original, data: original.data.slice() };
    choleskySerial(serial, 16);
    expect([...a.data]).toEqual([...serial.data]);
  });

  it("Cholesky of a matrix that is not positive definite rejects with PosDefError (Julia's PosDefException)", async () => {
    const { ctx } = await rig();
    const a = spdMatrix(32, 3);
    a.data[0] = -1;
    const error = await cholesky(a, 16, spawnOn(ctx)).catch((e) => e);
    expect(error).toBeInstanceOf(PosDefError);
    expect(error).toMatchObject({ code: 'DTASK_POSDEF', info: 1 });
    expect(error.message).toMatch(/leading minor of order 1 is not positive; factor a symmetric/);
    // in the second tile: the order counts from the matrix's first row
    const b = spdMatrix(32, 4);
    b.data[20 * 32 + 20] = -1e6;
    await expect(cholesky(b, 16, spawnOn(ctx))).rejects.toMatchObject({
      name: 'PosDefError',
      info: 21,
    });
    const c = spdMatrix(32, 4);
    c.data[20 * 32 + 20] = -1e6;
    expect(() => choleskySerial(c, 16)).toThrow(PosDefError);
  });
});

// Blockwise fusion on 2 real worker threads: a chain of element-wise operations and maps over
// arrays of one shape and blocking runs as one program per block (one group task per thread,
// computing that thread's blocks), to the bit the result of one operation at a time, with the
// same errors; arrays read in between keep their values.
import { type Context, withOptions } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { threadsRig } from './__fixtures__/rig.js';
import { arrayOf, type DType, type DTypeArray } from './dtype.js';
import { Blocks, type DArray, distribute } from './index.js';

const open: Context[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function rig(): Promise<Context> {
  const ctx = await threadsRig();
  open.push(ctx);
  return ctx;
}

/** Tasks spawned in `ctx` while `run` runs. */
async function spawnedBy(ctx: Context, run: () => Promise<unknown>): Promise<number> {
  const before = ctx.stats().tasks.spawned;
  await run();
  return ctx.stats().tasks.spawned - before;
}

function values(n: number, seed: number, dtype: DType): DTypeArray {
  let s = seed;
  const out = arrayOf(dtype, n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    out[i] = dtype === 'int32' ? (s % 200) - 100 : s / 2 ** 32 - 0.5;
  }
  return out;
}

/** `f` element by element into a new typed array of `dtype` (what one task per operation stores). */
function plain(dtype: DType, n: number, f: (i: number) => number): DTypeArray {
  const out = arrayOf(dtype, n);
  for (let i = 0; i < n; i++) out[i] = f(i);
  return out;
}

const N = [37, 23];
const BLOCKS = new Blocks(8, 6); // 5 × 4 = 20 blocks, uneven at the edges
/** Tasks an operation spawns: one group task per worker thread holding blocks (`spawnGroup`). */
const COUNT = 2;

describe('blockwise fusion', () => {
  it('a.mul(2).add(b).map(f) is one group task per thread, to the bit one operation at a time, in every dtype', async () => {
    const context = await rig();
    const n = N[0] * N[1];
    for (const dtype of ['float64', 'float32', 'int32'] as DType[]) {
      const x = values(n, 3, dtype);
      const y = values(n, 5, dtype);
      const a = distribute(x, N, BLOCKS, { context, dtype });
      const b = distribute(y, N, BLOCKS, { context, dtype });
      await Promise.all([...a.chunks, ...b.chunks].map((c) => c.wait()));
      const f = (v: number) => v * v - 3 / (v + 0.25);
      let fused: DArray | undefined;
      const spawned = await spawnedBy(context, async () => {
        fused = a.mul(2).add(b).map(f);
        await Promise.all(fused.chunks.map((c) => c.wait()));
      });
      expect(spawned).toBe(COUNT);
      // One task per operation: each array's chunks read (so made) before the next operation.
      const steps = await spawnedBy(context, async () => {
        const t1 = a.mul(2);
        void t1.chunks;
        const t2 = t1.add(b);
        void t2.chunks;
        const t3 = t2.map(f);
        const got = await t3.collect();
        expect(got.data).toEqual((await (fused as DArray).collect()).data);
      });
      expect(steps).toBe(3 * COUNT);
      const m = plain(dtype, n, (i) => x[i] * 2);
      const s = plain(dtype, n, (i) => m[i] + y[i]);
      const want = plain(dtype, n, (i) => f(s[i]));
      const got = await (fused as DArray).collect();
      expect(got.data).toBeInstanceOf(arrayOf(dtype, 0).constructor);
      expect([...got.data]).toEqual([...want]);
    }
  });

  it('an intermediate array read after the chain ran keeps its own values', async () => {
    const context = await rig();
    const x = values(N[0] * N[1], 7, 'float64');
    const a = distribute(x, N, BLOCKS, { context });
    const t = a.sub(0.5);
    const u = t.div(t.add(3)).mul(a);
    const spawned = await spawnedBy(context, () => u.collect());
    expect(spawned).toBe(COUNT);
    expect([...(await u.collect()).data]).toEqual(
      [...x].map((v) => ((v - 0.5) / (v - 0.5 + 3)) * v),
    );
    expect([...(await t.collect()).data]).toEqual([...x].map((v) => v - 0.5));
  });

  it('a pending chain reads its inputs as they were at the call: a later write does not reach it', async () => {
    const context = await rig();
    const a = distribute(Float64Array.from([1, 2, 3, 4, 5, 6]), [6], new Blocks(2), { context });
    const t = a.mul(10);
    const u = t.add(a);
    a.set(0, 100); // in the same synchronous run, before the chain's tasks are spawned
    t.set(5, -1); // reads t's chunks: t is made, then its block written
    expect([...(await u.collect()).data]).toEqual([11, 22, 33, 44, 55, 66]);
    expect([...(await t.collect()).data]).toEqual([10, 20, 30, 40, 50, -1]);
    expect([...(await a.collect()).data]).toEqual([100, 2, 3, 4, 5, 6]);
  });

  it('a chain of 200 operations in one loop gives the same numbers (long chains are cut)', async () => {
    const context = await rig();
    const x = values(N[0] * N[1], 9, 'float64');
    let a = distribute(x, N, BLOCKS, { context });
    for (let k = 0; k < 200; k++) a = k % 2 === 0 ? a.add(k) : a.mul(0.5);
    const want = [...x].map((v) => {
      let r = v;
      for (let k = 0; k < 200; k++) r = k % 2 === 0 ? r + k : r * 0.5;
      return r;
    });
    expect([...(await a.collect()).data]).toEqual(want);
  });

  it("a map failing inside a chain fails the chain's collect with the map's TypeError", async () => {
    const context = await rig();
    const a = distribute(Float64Array.from([1, -2, 3, -4]), [4], new Blocks(2), { context });
    const sometimesText = (v: number) => (v > 0 ? v : `neg ${v}`);
    const e = await a
      .map(sometimesText as unknown as (v: number) => number)
      .add(1)
      .collect()
      .then(undefined, (error: unknown) => error);
    expect((e as { code?: string }).code).toBe('DTASK_FAILED');
    const cause = (e as { cause?: Error }).cause;
    expect(cause?.name).toBe('TypeError');
    expect(cause?.message).toMatch(/da\.map\(f\): f returned 'neg -[24]' \(a string\)/);
  });

  it('on a closed context an operation throws at the call, as an unfused one did', async () => {
    const context = await threadsRig();
    const a = distribute(Float64Array.from([1, 2, 3, 4]), [4], new Blocks(2), { context });
    await a.collect();
    await context.close();
    expect(() => a.mul(2)).toThrow(/This context is closed/);
  });

  it('inside withOptions each operation spawns its tasks at once, with those options', async () => {
    const context = await rig();
    const a = distribute(values(N[0] * N[1], 11, 'float64'), N, BLOCKS, { context });
    await Promise.all(a.chunks.map((c) => c.wait()));
    const before = context.stats().tasks.spawned;
    withOptions({ priority: 1 }, () => {
      const t = a.mul(2);
      expect(context.stats().tasks.spawned - before).toBe(COUNT);
      t.add(1);
      expect(context.stats().tasks.spawned - before).toBe(2 * COUNT);
    });
  });
});

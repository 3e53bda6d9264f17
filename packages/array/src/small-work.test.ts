// Small operations (whole work under the limit of setSmallWorkElements) reduce the blocks with
// one task per processor holding them instead of a task per block, on 2 real worker threads;
// the small path and the per-block path give the same results to the bit.
import { ArgumentError, Context } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { threadsRig } from './__fixtures__/rig.js';
import type { DType } from './dtype.js';
import {
  Blocks,
  type DArray,
  DEFAULT_SMALL_WORK_ELEMENTS,
  distribute,
  setSmallWorkElements,
} from './index.js';

afterEach(() => {
  setSmallWorkElements(DEFAULT_SMALL_WORK_ELEMENTS);
});

/** Tasks spawned in `ctx` while `run` runs. */
async function spawnedBy(ctx: Context, run: () => Promise<unknown>): Promise<number> {
  const before = ctx.stats().tasks.spawned;
  await run();
  return ctx.stats().tasks.spawned - before;
}

/** Every reduction of `a`: whole (numbers) and along each set of dimensions (column-major data). */
async function reductions(a: DArray): Promise<unknown[]> {
  const out: unknown[] = [];
  for (const dims of [undefined, [0], [1], [0, 1]]) {
    const opts = dims === undefined ? undefined : { dims };
    const all = [
      opts ? a.sum(opts) : a.sum(),
      opts ? a.mean(opts) : a.mean(),
      opts ? a.min(opts) : a.min(),
      opts ? a.max(opts) : a.max(),
      opts ? a.reduce((p, x) => p * 0.5 + x, opts) : a.reduce((p, x) => p * 0.5 + x),
    ];
    for (const r of all) {
      out.push(
        typeof (r as Promise<number>).then === 'function' && !('chunks' in (r as object))
          ? await r
          : [...(await (r as DArray).collect()).data],
      );
    }
  }
  return out;
}

/** Values with NaN, ±0, ±Infinity and rounding-sensitive magnitudes, as `dtype` holds them. */
function awkward(n: number, dtype: DType): number[] {
  return Array.from({ length: n }, (_, i) => {
    if (dtype === 'int32') return ((i * 7919) % 201) - 100;
    if (i === 5) return Number.NaN;
    if (i === 9) return -0;
    if (i === 13) return Number.POSITIVE_INFINITY;
    return Math.sin(i) * 10 ** ((i % 7) - 3);
  });
}

describe('small DArray operations', () => {
  it('a small sum reduces the blocks with one task per thread holding them, not a task per block', async () => {
    await using context = await threadsRig();
    const a = distribute(awkward(64 * 64, 'float64'), [64, 64], new Blocks(16, 16), { context });
    await Promise.all(a.chunks.map((c) => c.wait()));
    const holders = new Set(
      context
        .stats()
        .processors.filter((p) => p.tasks > 0)
        .map((p) => p.id),
    );
    // 16 blocks spread over the threads: one task per thread that holds blocks.
    expect(await spawnedBy(context, () => a.sum())).toBe(holders.size);
    expect(holders.size).toBeLessThanOrEqual(2);
    setSmallWorkElements(0);
    // Over the limit: a task per block, combined here (no combine task); along a dimension,
    // a task per block and a combine task per result block.
    expect(await spawnedBy(context, () => a.sum())).toBe(16);
    expect(await spawnedBy(context, () => a.sum({ dims: 0 }).collect())).toBe(16 + 4);
  });

  it('a task per block runs on the thread that made its block: none here, the blocks stay there', async () => {
    await using context = await threadsRig();
    const a = distribute(awkward(64 * 64, 'float64'), [64, 64], new Blocks(16, 16), { context });
    await Promise.all(a.chunks.map((c) => c.wait()));
    const where = () => a.chunks.map((c) => c.processor?.id);
    const made = where();
    const held = new Map<string, number>();
    for (const id of made) held.set(String(id), (held.get(String(id)) ?? 0) + 1);
    expect(held.size).toBe(2);
    expect(held.has('thread:1:1')).toBe(false);
    const ran = () => new Map(context.stats().processors.map((p) => [p.id, p.tasks]));
    setSmallWorkElements(0);
    const before = ran();
    await a.sum();
    const after = ran();
    for (const [id, tasks] of after)
      expect(tasks - (before.get(id) ?? 0), id).toBe(held.get(id) ?? 0);
    expect(where()).toEqual(made);
  });

  it('in-process (no worker threads) a small sum is one task', async () => {
    await using context = new Context();
    const a = distribute(awkward(12 * 10, 'float64'), [12, 10], new Blocks(4, 5), { context });
    await Promise.all(a.chunks.map((c) => c.wait()));
    expect(await spawnedBy(context, () => a.sum())).toBe(1);
  });

  for (const dtype of ['float64', 'float32', 'int32'] as const) {
    it(`${dtype}: every reduction gives the same result to the bit on both paths (NaN, ±0, ∞, uneven blocks)`, async () => {
      await using context = await threadsRig();
      const a = distribute(awkward(13 * 11, dtype), [13, 11], new Blocks(4, 3), {
        context,
        dtype,
      });
      setSmallWorkElements(Number.POSITIVE_INFINITY);
      const small = await reductions(a);
      setSmallWorkElements(0);
      const perBlock = await reductions(a);
      expect(small.length).toBe(20);
      // toEqual treats NaN as equal to NaN and tells -0 from +0 (Object.is).
      expect(small).toEqual(perBlock);
      if (dtype !== 'int32') expect(Number.isNaN(small[0])).toBe(true);
    });
  }

  it('blocks still being made (a map not finished yet) give the same sum on both paths', async () => {
    await using context = await threadsRig();
    const a = distribute(awkward(40 * 40, 'float64'), [40, 40], new Blocks(10, 10), { context });
    setSmallWorkElements(Number.POSITIVE_INFINITY);
    const small = await a.map((x) => x * 3 - 1).sum();
    const dims = [
      ...(
        await a
          .map((x) => x * 3 - 1)
          .sum({ dims: 1 })
          .collect()
      ).data,
    ];
    setSmallWorkElements(0);
    expect(await a.map((x) => x * 3 - 1).sum()).toBe(small);
    expect([
      ...(
        await a
          .map((x) => x * 3 - 1)
          .sum({ dims: 1 })
          .collect()
      ).data,
    ]).toEqual(dims);
  });

  it('an empty array throws the same ArgumentError at the call on both paths', async () => {
    await using context = await threadsRig();
    const e = distribute([], [0, 4], new Blocks(2, 2), { context });
    for (const limit of [Number.POSITIVE_INFINITY, 0]) {
      setSmallWorkElements(limit);
      expect(() => e.sum()).toThrow(ArgumentError);
      expect(() => e.max({ dims: 0 })).toThrow(/is empty/);
    }
  });

  it('setSmallWorkElements takes a number ≥ 0 and returns the previous limit', () => {
    expect(setSmallWorkElements(100)).toBe(DEFAULT_SMALL_WORK_ELEMENTS);
    expect(setSmallWorkElements(0)).toBe(100);
    for (const bad of [-1, Number.NaN, '10' as unknown as number]) {
      expect(() => setSmallWorkElements(bad)).toThrow(ArgumentError);
    }
  });
});

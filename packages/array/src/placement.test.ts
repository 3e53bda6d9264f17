// Where chunks live. The logs say which processor made and holds each chunk; the
// constructors build nothing of full size on the caller (memory figures of the main thread).
import { disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { threadsRig } from './__fixtures__/rig.js';
import { Blocks, DArray } from './index.js';

/**
 * The processor id each of `ids`' tasks ran on, from the logs' `start`/`finish` events (a task
 * started by its worker as a local successor logs only its `finish` span). Kept: `clear: false`.
 */
function ranOn(ids: number[]): Map<number, string> {
  const wanted = new Set(ids);
  const where = new Map<number, string>();
  for (const e of fetchLogs({ clear: false })) {
    if ((e.kind === 'start' || e.kind === 'finish') && wanted.has(e.task as number)) {
      where.set(e.task as number, e.processor as string);
    }
  }
  return where;
}

describe('DArray placement', () => {
  it('by default the scheduler spreads the blocks over the worker threads in scope', async () => {
    await using ctx = await threadsRig();
    enableLogging();
    try {
      fetchLogs();
      const a = DArray.rand([600, 500], new Blocks(100, 250), { context: ctx });
      const b = a.mul(2);
      await b.sum();
      const made = ranOn(a.chunks.map((c) => c.id));
      const derived = ranOn(b.chunks.map((c) => c.id));
      expect(made.size).toBe(12);
      // Both worker threads made blocks; the main thread (outside DefaultScope) none.
      expect(new Set(made.values())).toEqual(new Set(['thread:1:2', 'thread:1:3']));
      // Each chunk task's processor, as the handle reports it, is where the log says it ran.
      for (const c of a.chunks) expect(c.processor?.id).toBe(made.get(c.id));
      expect(new Set(derived.values())).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    } finally {
      disableLogging();
    }
  });

  it("by default blocks go to the threads in contiguous runs, and element-wise chains stay on each block's thread", async () => {
    await using ctx = await threadsRig();
    const a = DArray.rand([256, 256], new Blocks(32, 32), { context: ctx, seed: 1 });
    const b = DArray.rand([256, 256], new Blocks(32, 32), { context: ctx, seed: 2 });
    // Not waited for: the chain's tasks follow blocks still being made.
    const c = a
      .mul(2)
      .add(b)
      .map((x) => x + 1);
    const d = c.add(b.mul(3)).sub(1);
    await Promise.all([...c.chunks, ...d.chunks].map((x) => x.wait()));
    const homes = a.chunks.map((x) => x.processor?.id);
    // 64 blocks on 2 threads: block columns 0–3 on one, 4–7 on the other.
    expect(new Set(homes.slice(0, 32)).size).toBe(1);
    expect(new Set(homes.slice(32)).size).toBe(1);
    expect(new Set(homes)).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    expect(b.chunks.map((x) => x.processor?.id)).toEqual(homes);
    expect(c.chunks.map((x) => x.processor?.id)).toEqual(homes);
    expect(d.chunks.map((x) => x.processor?.id)).toEqual(homes);
    const [x, y, z] = await Promise.all([a.collect(), b.collect(), d.collect()]);
    for (let i = 0; i < x.data.length; i += 97) {
      expect(z.data[i]).toBeCloseTo(2 * x.data[i] + y.data[i] + 1 + 3 * y.data[i] - 1, 12);
    }
  });

  it('assign places each block explicitly by its grid index', async () => {
    await using ctx = await threadsRig();
    enableLogging();
    try {
      fetchLogs();
      const a = DArray.ones([9, 4], new Blocks(2, 2), {
        context: ctx,
        assign: ([i, j]) => scope({ worker: 1, thread: 2 + ((i + j) % 2) }),
      });
      expect(await a.sum()).toBe(36);
      const where = ranOn(a.chunks.map((c) => c.id));
      a.chunks.forEach((c, k) => {
        const [i, j] = [k % 5, Math.floor(k / 5)];
        expect(where.get(c.id)).toBe(`thread:1:${2 + ((i + j) % 2)}`);
      });
    } finally {
      disableLogging();
    }
  });

  it('zeros/rand of 64 MiB allocate nothing of full size on the caller; collect() does', async () => {
    await using ctx = await threadsRig();
    const MiB = 1024 * 1024;
    const buffers = () => process.memoryUsage().arrayBuffers;
    // 2048 × 4096 float64 = 64 MiB in 8 blocks of 8 MiB, made on the worker threads.
    const before = buffers();
    const z = DArray.zeros([2048, 4096], new Blocks(1024, 1024), { context: ctx });
    const r = DArray.rand([2048, 4096], new Blocks(1024, 1024), { context: ctx });
    await Promise.all([...z.chunks, ...r.chunks].map((c) => c.wait()));
    expect(await r.max()).toBeLessThan(1);
    expect(await z.sum()).toBe(0);
    const made = buffers() - before;
    // Two 64 MiB arrays exist (on the threads, in SharedArrayBuffers), none on the caller.
    expect(made).toBeLessThan(4 * MiB);
    // The same figure does see a full-size array once the caller gathers one.
    const whole = await r.collect();
    expect(buffers() - before).toBeGreaterThan(60 * MiB);
    expect(whole.data.length).toBe(2048 * 4096);
  });
});

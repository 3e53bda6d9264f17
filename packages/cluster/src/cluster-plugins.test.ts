// A worker process re-creates the context's other plugins from their specs: with
// @dtask/lmdb, each worker process has its own memory budget and spills into the same store.
import { Context, scope } from '@dtask/core';
import { ChunkDb, lmdb } from '@dtask/lmdb';
import { describe, expect, it } from 'vitest';
import { cluster } from './index.js';

describe('cluster: the context’s plugins in worker processes', () => {
  it('lmdb: a worker process’s working set over its memory limit spills to the shared store', async () => {
    const store = lmdb({ memoryLimit: 4 << 20 });
    const plugin = cluster({ workers: 1, threads: 1 });
    await using ctx = new Context({ plugins: [store, plugin] });
    await ctx.ready();
    const [w] = plugin.processWorkers();
    const on = (thread: number) => ({ scope: scope({ worker: w.worker, thread }) });
    // 8 blocks of 2 MiB made on the worker's main thread: 16 MiB against a 4 MiB budget.
    const parts = Array.from({ length: 8 }, (_, i) =>
      ctx.spawn(on(1), (k) => new Float64Array(1 << 18).fill(k), i),
    );
    await Promise.all(parts.map((p) => ctx.spawn(on(1), (x) => x.length, p)));
    const db = await ChunkDb.open(store.path);
    try {
      const spilled = db.keys(`s:${w.child!.pid}:`);
      expect(spilled.length).toBeGreaterThanOrEqual(4);
    } finally {
      db.close();
    }
    // The worker's other thread reads them back (unspilled where they are held).
    const sum = await ctx.spawn(on(2), (...xs) => xs.reduce((s, x) => s + x[7], 0), ...parts);
    expect(sum).toBe(28);
  });
});

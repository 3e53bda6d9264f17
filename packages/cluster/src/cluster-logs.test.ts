// `fetchLogs()` holds every process's events on one clock. A worker process records
// its own events (here @dtask/lmdb's spills) and its runtime sends them to the scheduler, which
// shifts them by the process's clock offset: exact on one machine (from the monotonic clock all
// its processes share), estimated from probes across machines. Worker processes run the
// built dist: build before running this test.
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { afterEach, describe, expect, it } from 'vitest';
import { cluster } from './index.js';

/** Preloaded into the worker process: its clocks run 5 s ahead of this process's. */
const skewed = new URL('./__fixtures__/skewed-clock.mjs', import.meta.url).href;

afterEach(() => {
  disableLogging();
  fetchLogs();
});

const clock = () => performance.timeOrigin + performance.now();

describe('cluster: logs from worker processes on the scheduler’s clock', () => {
  it('spills in a worker process whose clock is 5 s ahead land inside the run; the offset is logged', async () => {
    const store = lmdb({ memoryLimit: 1 << 20 });
    const plugin = cluster({ workers: 1, threads: 1, execArgv: ['--import', skewed] });
    await using ctx = new Context({ plugins: [store, plugin] });
    await ctx.ready();
    const on = (thread: number) => ({ scope: scope({ worker: 2, thread }) });
    // The worker's own clock is really ahead.
    const theirs = await ctx.spawn(on(1), () => performance.timeOrigin + performance.now());
    expect(theirs - clock()).toBeGreaterThan(4000);
    enableLogging();
    fetchLogs();
    const before = clock();
    // 6 blocks of 1 MiB made on the worker's thread 2 against a 1 MiB budget: they spill.
    const parts = Array.from({ length: 6 }, (_, i) =>
      ctx.spawn(on(2), (k: number) => new Float64Array(1 << 17).fill(k), i),
    );
    const sum = await ctx.spawn(
      on(2),
      (...xs: Float64Array[]) => xs.reduce((s, x) => s + x[0], 0),
      ...parts,
    );
    const after = clock();
    expect(sum).toBe(15);
    const logs = fetchLogs();
    const spills = logs.filter((e) => e.kind === 'spill');
    expect(spills.length).toBeGreaterThan(0);
    for (const e of spills) {
      expect(e).toMatchObject({ processor: 'thread:2:2', worker: 2 });
      expect(e.time).toBeGreaterThanOrEqual(before - 50);
      expect(e.time).toBeLessThanOrEqual(after + 50);
    }
    const clocks = logs.filter((e) => e.kind === 'clock' && e.processor === 'thread:2:2');
    expect(clocks.length).toBeGreaterThan(0);
    const offset = Number(/clock offset (-?[\d.]+) ms/.exec(clocks.at(-1)?.detail ?? '')?.[1]);
    expect(Math.abs(offset - 5000)).toBeLessThan(1);
    expect(clocks.at(-1)?.detail).toMatch(/same machine: exact$/);
  }, 30_000);

  it('holds memory samples of the scheduler’s process and of each worker process', async () => {
    const plugin = cluster({ workers: 2 });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const workers = plugin.processWorkers().map((p) => p.worker);
    enableLogging();
    fetchLogs();
    const on = (worker: number) => ({ scope: scope({ worker }) });
    await Promise.all(workers.map((w) => ctx.spawn(on(w), () => new Uint8Array(1 << 20).length)));
    const memory = fetchLogs().filter((e) => e.kind === 'memory');
    expect(new Set(memory.map((e) => e.worker))).toEqual(new Set([1, ...workers]));
    for (const e of memory) expect(e.bytes).toBeGreaterThan(10 * 2 ** 20); // a node process
  }, 30_000);
});

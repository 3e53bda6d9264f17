// Utilisation (ctx.stats()) on real worker threads: tasks per thread, run and wait percentiles
// and busy fraction against what the threads really did.
import type { ProcessorUtilization, Stats } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

declare const dtask: typeof import('@dtask/core');

/** Blocks the thread for `ms` (a real sleep: the thread can run nothing else meanwhile). */
const sleep = (ms: number) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return ms;
};

const threadsOf = (s: Stats): ProcessorUtilization[] =>
  s.processors.filter((p) => p.kind === 'thread' && p.worker === 1 && !p.id.endsWith(':1'));

describe('stats() on two worker threads', () => {
  it('20 tasks of 20 ms: about 10 per thread, run p50 near 20 ms, busy for every run, waits in line', async () => {
    const { ctx } = await rig();
    const before = ctx.stats();
    await Promise.all(Array.from({ length: 20 }, () => ctx.spawn(sleep, 20)));
    const after = ctx.stats();
    const workers = threadsOf(after);
    expect(workers.map((p) => p.id).sort()).toEqual(['thread:1:2', 'thread:1:3']);
    expect(workers[0].tasks + workers[1].tasks).toBe(20);
    // The window of the burst (the difference of two calls): longer on a loaded machine.
    const elapsed = after.elapsedMs - before.elapsedMs;
    const runs = new Map<string, number>();
    for (const p of workers) {
      const n = p.tasks;
      expect(n).toBeGreaterThanOrEqual(5);
      expect(p.runMs.count).toBe(n);
      // A thread's runs took turns within the window; a run timed with its wait in line
      // (20, 40 … 200 ms) would break these bounds. HDR histograms: within 1%.
      expect(p.runMs.p50).toBeGreaterThanOrEqual(19.5);
      const upper = Math.ceil(n / 2); // runs as long as the median or longer
      const p50Bound = (elapsed - (n - upper) * 19.5) / upper;
      expect(p.runMs.p50).toBeLessThanOrEqual(p50Bound * 1.01);
      expect(p.runMs.max).toBeLessThanOrEqual((elapsed - (n - 1) * 19.5) * 1.01);
      runs.set(p.id, p.busyMs);
      // Busy for each of its runs within the window, and never longer than the window.
      const was = threadsOf(before).find((q) => q.id === p.id)!;
      const busy = p.busyMs - was.busyMs;
      expect(busy).toBeGreaterThanOrEqual(n * 19.5);
      expect(busy).toBeLessThanOrEqual(elapsed * 1.01);
      expect(p.busyFraction).toBeLessThanOrEqual(1.01);
    }
    // Ten tasks queued per thread: the later ones waited for those before them.
    const waits = workers.map((p) => p.waitMs);
    expect(waits.reduce((n, w) => n + w.count, 0)).toBe(20);
    expect(Math.max(...waits.map((w) => w.p90))).toBeGreaterThan(60);
    expect(Math.max(...waits.map((w) => w.max))).toBeGreaterThan(100);
    expect(after.tasks).toEqual({
      spawned: 20,
      finished: 20,
      failed: 0,
      unfinished: 0,
      placedByWorkers: { finished: 0, failed: 0 },
    });
  });

  it('a chain sent ahead counts every run; failures are counted, not timed', async () => {
    const { ctx } = await rig();
    let t = ctx.spawn(sleep, 5);
    for (let i = 0; i < 9; i++) t = ctx.spawn(sleep, t);
    await t;
    const bad = ctx.spawn(() => {
      throw new Error('bad');
    });
    await bad.wait();
    const s = ctx.stats();
    const ran = threadsOf(s).reduce((n, p) => n + p.tasks, 0);
    expect(ran).toBe(10);
    expect(s.tasks).toEqual({
      spawned: 11,
      finished: 10,
      failed: 1,
      unfinished: 0,
      placedByWorkers: { finished: 0, failed: 0 },
    });
  });

  it('stats() inside a task on a worker thread throws UnsupportedError, saying where to call it', async () => {
    const { ctx } = await rig();
    const out = await ctx.spawn(() => {
      try {
        dtask.stats();
        return 'no error';
      } catch (error) {
        return `${(error as { code: string }).code}: ${(error as Error).message}`;
      }
    });
    expect(out).toMatch(
      /^DTASK_UNSUPPORTED: stats\(\) inside a task running on a worker.*ctx\.stats\(\)/,
    );
  });
});

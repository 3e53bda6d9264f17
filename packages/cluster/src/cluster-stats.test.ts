// Utilisation (ctx.stats()) on real worker processes: tasks per process, run and wait
// percentiles and busy time against what the processes really did. Needs the built dist
// (worker processes run dist/worker-main.js).
import type { ProcessorUtilization, Stats } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';

/** Blocks the process for `ms` (a real sleep: it can run nothing else meanwhile). */
const sleep = (ms: number) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return ms;
};

const remote = (s: Stats): ProcessorUtilization[] => s.processors.filter((p) => p.worker !== 1);

describe('stats() on two worker processes', () => {
  it('20 tasks of 20 ms: spread over both, run p50 near 20 ms, busy time adds up, later ones waited', async () => {
    await using r = await clusterRig();
    const before = r.ctx.stats();
    await Promise.all(Array.from({ length: 20 }, () => r.ctx.spawn(sleep, 20)));
    const after = r.ctx.stats();
    const used = remote(after).filter((p) => p.tasks > 0);
    expect(remote(after).reduce((n, p) => n + p.tasks, 0)).toBe(20);
    expect(new Set(used.map((p) => p.worker)).size).toBe(2);
    for (const p of used) {
      expect(p.runMs.count).toBe(p.tasks);
      expect(p.runMs.p50).toBeGreaterThanOrEqual(19.5);
      expect(p.runMs.p50).toBeLessThan(60);
      expect(p.busyMs).toBeGreaterThanOrEqual(p.tasks * 19.5);
      expect(p.waitMs.count).toBe(p.tasks);
    }
    const busy =
      used.reduce((n, p) => n + p.busyMs, 0) - remote(before).reduce((n, p) => n + p.busyMs, 0);
    // Two processes each working through its share (at most 2: both busy all the window); the
    // sends and reports between them cost a little on a loaded machine.
    const fraction = busy / (after.elapsedMs - before.elapsedMs);
    expect(fraction).toBeGreaterThan(0.6);
    expect(fraction).toBeLessThanOrEqual(2.02);
    expect(Math.max(...used.map((p) => p.waitMs.max))).toBeGreaterThan(60);
    expect(after.tasks).toEqual({
      spawned: 20,
      finished: 20,
      failed: 0,
      unfinished: 0,
      placedByWorkers: { finished: 0, failed: 0 },
    });
  }, 60_000);
});

import { createHistogram } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { PendingDurations } from './pending-durations.js';
import { ProcessorStats } from './processor-stats.js';

describe('PendingDurations', () => {
  it('makes no histogram before the first duration', () => {
    expect(new PendingDurations().recorded()).toBeUndefined();
  });

  it('holds every duration added, read at any point, as a histogram filled one by one would', () => {
    const pending = new PendingDurations();
    const direct = createHistogram({ lowest: 1, highest: 2 ** 40, figures: 2 });
    // Reads fall before, on and after the points where the held durations go in (every 64).
    for (const n of [1, 63, 64, 65, 127, 128, 500, 1000]) {
      for (let i = direct.count; i < n; i++) {
        const us = 1 + ((i * 7919) % 5000) * (i % 3 === 0 ? 1000 : 1);
        pending.add(us);
        direct.record(us);
      }
      const h = pending.recorded()!;
      expect(h.count).toBe(n);
      for (const p of [50, 90, 99]) expect(h.percentile(p)).toBe(direct.percentile(p));
      expect([h.min, h.max, h.mean]).toEqual([direct.min, direct.max, direct.mean]);
    }
  });
});

describe('ProcessorStats', () => {
  it('summarises every run and wait recorded, including those still held', () => {
    const stats = new ProcessorStats();
    for (let i = 1; i <= 70; i++) stats.recordRun(i); // 1..70 ms
    stats.recordWait(0.25);
    const run = stats.runSummary();
    expect(run.count).toBe(70);
    expect(run.max).toBeCloseTo(70, 0);
    expect(run.p50).toBeGreaterThanOrEqual(35 * 0.99);
    expect(run.p50).toBeLessThanOrEqual(35 * 1.01);
    expect(stats.waitSummary()).toMatchObject({ count: 1, p50: 0.25, max: 0.25 });
    expect(stats.tasks).toBe(70);
    expect(stats.busyMs()).toBe((70 * 71) / 2);
  });
});

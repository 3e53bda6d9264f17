import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';
import { stats } from '../../registry/current-stats.js';
import { rmProcs } from '../../registry/procs.js';
import { ExactScope } from '../../scope/exact-scope.js';
import { FakeProcessor, fakeProcessorPlugin } from '../../testing/fake-processor.js';
import { SAMPLE_EVERY } from './scheduler-stats.js';
import { WAIT_ALL_FIRST, WAIT_SAMPLE_EVERY } from './task-timing.js';

/** Keeps the thread busy for `ms` (a task that really uses its processor). */
const spin = (ms: number): number => {
  const until = performance.now() + ms;
  while (performance.now() < until);
  return ms;
};

describe('stats(): utilisation per processor', () => {
  it('on a lone calling thread counts every run and task, and times one ready task in SAMPLE_EVERY', async () => {
    await using ctx = new Context();
    const n = SAMPLE_EVERY * 20;
    const ok = Array.from({ length: n }, (_, i) => ctx.spawn((x: number) => x + 1, i));
    const bad = Array.from({ length: 5 }, () =>
      ctx.spawn(() => {
        throw new Error('no');
      }),
    );
    await Promise.all(ok);
    await Promise.allSettled(bad);
    const s = ctx.stats();
    expect(s.tasks).toEqual({
      spawned: n + 5,
      finished: n,
      failed: 5,
      unfinished: 0,
      placedByWorkers: { finished: 0, failed: 0 },
    });
    expect(s.processors).toHaveLength(1);
    const main = s.processors[0];
    expect(main).toMatchObject({ id: ctx.localProc.id, worker: 1, removed: false, tasks: n });
    // n + 5 ready tasks, every SAMPLE_EVERY-th timed (a failing one has no run time).
    const sampled = Math.floor((n + 5) / SAMPLE_EVERY);
    expect(main.runMs.count).toBeGreaterThanOrEqual(sampled - 1);
    expect(main.runMs.count).toBeLessThanOrEqual(sampled);
    expect(main.waitMs.count).toBe(sampled);
    expect(main.busyMs).toBeGreaterThan(0);
    expect(main.busyFraction).toBeGreaterThan(0);
    expect(main.busyFraction).toBeLessThanOrEqual(1);
  });

  it('times every run once there is a choice of processor: a burst on one thread waits in line', async () => {
    // A processor no default task goes to: the calling thread runs the burst, timing each task.
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const before = ctx.stats();
    const burst = Array.from({ length: 5 }, () => ctx.spawn(spin, 20));
    await Promise.all(burst);
    const after = ctx.stats();
    const main = after.processors.find((p) => p.id === ctx.localProc.id)!;
    expect(main.tasks).toBe(5);
    expect(main.runMs.count).toBe(5);
    // HDR histograms with two significant figures: within 1% of the true value. The five runs
    // took turns on one thread within `elapsed` (longer on a loaded machine, which may pause
    // a run): a run timed with its wait in line (20, 40 … 100 ms) would break these bounds.
    const elapsed = after.elapsedMs - before.elapsedMs;
    expect(main.runMs.p50).toBeGreaterThanOrEqual(19.8);
    // At least 3 runs as long as the median, and 2 more of 20 ms.
    expect(main.runMs.p50).toBeLessThanOrEqual(((elapsed - 2 * 19.8) / 3) * 1.01);
    expect(main.runMs.max).toBeLessThanOrEqual((elapsed - 4 * 19.8) * 1.01);
    // All five were ready at once; the k-th started after k-1 runs of 20 ms.
    expect(main.waitMs.count).toBe(5);
    expect(main.waitMs.max).toBeGreaterThanOrEqual(79);
    expect(main.waitMs.p50).toBeGreaterThanOrEqual(39);
    // Busy for every run, and never longer than the time that passed.
    const mainBefore = before.processors.find((p) => p.id === ctx.localProc.id)!;
    const busy = main.busyMs - mainBefore.busyMs;
    expect(busy).toBeGreaterThanOrEqual(5 * 19.8);
    expect(busy).toBeLessThanOrEqual(elapsed * 1.01);
    expect(after.processors.find((p) => p.id === fake.id)).toMatchObject({
      kind: 'fake',
      worker: 2,
      tasks: 0,
      busyMs: 0,
      runMs: { count: 0, p50: 0, max: 0 },
    });
  });

  it('with a choice of processor times every run, and the wait of the first WAIT_ALL_FIRST ready tasks, then one in WAIT_SAMPLE_EVERY', async () => {
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const n = WAIT_ALL_FIRST + WAIT_SAMPLE_EVERY * 10;
    await Promise.all(Array.from({ length: n }, (_, i) => ctx.spawn((x: number) => x, i)));
    const main = ctx.stats().processors.find((p) => p.id === ctx.localProc.id)!;
    expect(main.tasks).toBe(n);
    expect(main.runMs.count).toBe(n);
    expect(main.waitMs.count).toBe(WAIT_ALL_FIRST + 10);
  });

  it("records a processor's runs and the wait behind its one-at-a-time executor", async () => {
    const fake = new FakeProcessor({ worker: 2, index: 1, compatible: () => true, delayMs: 15 });
    await using ctx = new Context({ plugins: [fakeProcessorPlugin([fake])] });
    const on = { scope: new ExactScope(fake) };
    await Promise.all(Array.from({ length: 4 }, (_, i) => ctx.spawn(on, (x: number) => x, i)));
    const p = ctx.stats().processors.find((x) => x.id === fake.id)!;
    expect(p.tasks).toBe(4);
    expect(p.runMs.count).toBe(4);
    expect(p.runMs.p50).toBeGreaterThanOrEqual(14);
    // Capacity 1: the last of the four waited for three runs before it.
    expect(p.waitMs.count).toBe(4);
    expect(p.waitMs.max).toBeGreaterThanOrEqual(40);
    rmProcs(ctx, [fake]);
    expect(ctx.stats().processors.find((x) => x.id === fake.id)?.removed).toBe(true);
  });

  it('is plain data: since is a wall-clock time, elapsedMs grows, JSON keeps it whole', async () => {
    const t0 = Date.now();
    await using ctx = new Context();
    await ctx.spawn(() => 1);
    const s = ctx.stats();
    // Made between t0 and now (50 ms for the monotonic clock it is read from drifting from
    // the wall clock, as NTP slews it).
    expect(s.since).toBeGreaterThanOrEqual(t0 - 50);
    expect(s.since).toBeLessThanOrEqual(Date.now() + 50);
    expect(s.elapsedMs).toBeGreaterThanOrEqual(0);
    expect(JSON.parse(JSON.stringify(s))).toEqual(s);
    await new Promise((r) => setTimeout(r, 20));
    expect(ctx.stats().elapsedMs).toBeGreaterThanOrEqual(s.elapsedMs + 15);
  });

  it("top-level stats() inside a task reads that task's context; outside, the default context", async () => {
    await using ctx = new Context();
    const seen = await ctx.spawn(() => stats());
    expect(seen.processors.map((p) => p.id)).toEqual([ctx.localProc.id]);
    expect(seen.tasks.unfinished).toBe(1);
    const outside = stats();
    expect(outside.processors.map((p) => p.id)).not.toContain(undefined);
    expect(outside.processors[0]?.id).not.toBe(undefined);
  });
});

import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';
import { rmProcs } from '../../registry/procs.js';
import { ExactScope } from '../../scope/exact-scope.js';
import { taskProcessor } from '../../task/task-local.js';
import { FakeProcessor, fakeProcessorPlugin } from '../../testing/fake-processor.js';
import { CostModel, UNKNOWN_RUN_MS } from './cost-model.js';

const all = () => true;

/** Two idle, default-enabled fake processors on workers 2 and 3; the main thread removed. */
function pair(delayMs = 0) {
  const a = new FakeProcessor({
    worker: 2,
    index: 1,
    defaultEnabled: true,
    compatible: all,
    delayMs,
  });
  const b = new FakeProcessor({
    worker: 3,
    index: 1,
    defaultEnabled: true,
    compatible: all,
    delayMs,
  });
  const ctx = new Context({ plugins: [fakeProcessorPlugin([a, b])] });
  rmProcs(ctx, [ctx.localProc]);
  return { ctx, a, b, [Symbol.asyncDispose]: () => ctx.close() };
}

describe('cost model placement', () => {
  it('spreads slow tasks across idle processors by load', async () => {
    await using env = pair(15);
    const slow = (i: number) => i;
    const tasks = Array.from({ length: 8 }, (_, i) => env.ctx.spawn(slow, i));
    expect(await Promise.all(tasks)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(env.a.executions).toBeGreaterThanOrEqual(3);
    expect(env.b.executions).toBeGreaterThanOrEqual(3);
    expect(env.a.executions + env.b.executions).toBe(8);
  });

  it('sends a dependent to where its big input lives when both are idle', async () => {
    await using env = pair();
    const { ctx, a, b } = env;
    // Produced on b, the second processor, so that a tie would have picked a.
    const big = ctx.spawn({ scope: new ExactScope(b) }, () => new Float64Array(1 << 20).fill(1));
    const sum = ctx.spawn(
      (x: Float64Array) => [x.reduce((s, v) => s + v, 0), taskProcessor().id],
      big,
    );
    expect(await sum).toEqual([1 << 20, b.id]);
    expect(a.executions).toBe(0);
  });

  it('without a big input, a tie between idle processors goes to either', async () => {
    await using env = pair();
    const small = env.ctx.spawn({ scope: new ExactScope(env.b) }, () => 1);
    const next = env.ctx.spawn((x: number) => [x, taskProcessor().id], small);
    const [value, where] = await next;
    expect(value).toBe(1);
    expect([env.a.id, env.b.id]).toContain(where);
  });
});

describe('CostModel', () => {
  it('learns run times per function and arity', () => {
    const model = new CostModel();
    const f = () => 0;
    expect(model.estimateRun(f, 0)).toBe(UNKNOWN_RUN_MS);
    model.recordRun(f, 0, 10);
    model.recordRun(f, 0, 20);
    expect(model.estimateRun(f, 0)).toBe(15);
    expect(model.estimateRun(f, 1)).toBe(UNKNOWN_RUN_MS);
    expect(model.samples(f, 0)).toBe(2);
  });

  it('keeps each function and arity apart when calls alternate between them', () => {
    const model = new CostModel();
    const f = (x: number) => x;
    const g = (x: number, y: number) => x + y;
    for (let i = 0; i < 40; i++) {
      model.recordRun(f, 1, 1);
      expect(model.estimateRun(g, 2)).toBe(i === 0 ? UNKNOWN_RUN_MS : 7);
      model.recordRun(g, 2, 7);
      expect(model.estimateRun(f, 1)).toBe(1);
      expect(model.estimateRun(f, 2)).toBe(UNKNOWN_RUN_MS);
    }
    expect(model.samples(f, 1)).toBe(40);
    expect(model.samples(g, 2)).toBe(40);
    // Another function object with the same source shares the learned time.
    const f2 = (x: number) => x;
    expect(model.estimateRun(f2, 1)).toBe(1);
  });

  it('follows a change of run time, refreshing the estimate at least every 16 samples', () => {
    const model = new CostModel();
    const f = () => 0;
    for (let i = 0; i < 100; i++) model.recordRun(f, 0, 1);
    for (let i = 0; i < 200; i++) model.recordRun(f, 0, 9);
    const estimate = model.estimateRun(f, 0);
    expect(estimate).toBeGreaterThan(8.9);
    expect(estimate).toBeLessThanOrEqual(9);
    // Between refreshes the estimate lags the mean by at most 15 samples.
    for (let i = 0; i < 15; i++) model.recordRun(f, 0, 1);
    expect(model.estimateRun(f, 0)).toBeGreaterThan(1);
  });

  it('prices moves by distance and learned bandwidth, and nothing on the same processor', () => {
    const model = new CostModel();
    const a = new FakeProcessor({ worker: 2, index: 1 });
    const a2 = new FakeProcessor({ worker: 2, index: 2 });
    const c = new FakeProcessor({ worker: 3, index: 1 });
    expect(model.moveCost(a, a, 1e6)).toBe(0);
    expect(model.moveCost(a, c, 1e6)).toBeGreaterThan(model.moveCost(a, a2, 1e6));
    model.recordMove(a, c, 1e6, 100); // 10 kB/ms
    expect(model.moveCost(a, c, 1e6)).toBeCloseTo(100);
  });
});

describe('cost model: typical run time', () => {
  it('one run stretched by the machine moves typicalRun by a fifth at most, meanMs by far more', () => {
    const model = new CostModel();
    const f = (x: number) => x;
    expect(model.typicalRun(f, 1)).toBeUndefined();
    for (let i = 0; i < 32; i++) model.recordRun(f, 1, 0.002);
    model.recordRun(f, 1, 1); // a 2 µs function descheduled for 1 ms
    expect(model.typicalRun(f, 1)).toBeLessThan(0.002 * 1.2);
    for (let i = 0; i < 15; i++) model.recordRun(f, 1, 0.002);
    // The estimate placement uses (refreshed every 16 runs) is still 10× the function's time.
    expect(model.estimateRun(f, 1)).toBeGreaterThan(0.02);
    expect(model.typicalRun(f, 1)).toBeLessThan(0.0022);
  });

  it('runsUnder answers typicalRun and samples in one question', () => {
    const model = new CostModel();
    const f = (x: number) => x;
    expect(model.runsUnder(f, 1, 1, 1)).toBe(false); // never timed
    expect(model.runsUnder('f', 1, 0, 1)).toBe(false); // not a function
    for (let i = 0; i < 3; i++) model.recordRun(f, 1, 0.002);
    expect(model.runsUnder(f, 1, 4, 0.02)).toBe(false); // 3 samples of 4
    model.recordRun(f, 1, 0.002);
    expect(model.runsUnder(f, 1, 4, 0.02)).toBe(true);
    expect(model.runsUnder(f, 1, 4, 0.002)).toBe(false); // not under
    expect(model.runsUnder(f, 2, 4, 0.02)).toBe(false); // another arity
  });

  it('a function whose runs really grow is followed within a few dozen runs', () => {
    const model = new CostModel();
    const f = (x: number) => x;
    for (let i = 0; i < 32; i++) model.recordRun(f, 1, 0.002);
    let runs = 0;
    while (model.typicalRun(f, 1)! < 0.05) {
      model.recordRun(f, 1, 1);
      runs++;
    }
    expect(runs).toBeLessThan(40);
  });
});

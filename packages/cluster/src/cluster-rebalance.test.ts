// Worker processes added while a job runs take their share of its queued work: tasks already
// queued on a busy worker process that have not started are handed back to the new ones
// (core's work stealing, `Executor.giveBack`). Needs the built dist.
import { addProcs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, until } from './__fixtures__/rig.js';

declare const dtask: typeof import('@dtask/core');

describe('cluster: workers added mid-job', () => {
  it('take tasks queued on a busy worker process', async () => {
    await using r = await clusterRig({ workers: 1 });
    const [busy] = r.plugin.processWorkers();
    // Each task blocks its thread for 1 s without using the CPU: ten queue up on one worker, 10 s
    // of work, so that both new workers have joined (a loaded machine takes seconds to start
    // them) while some of it has not begun.
    const block = (i: number) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
      return [dtask.currentWorker(), i];
    };
    const tasks = Array.from({ length: 10 }, (_, i) => r.ctx.spawn(block, i));
    await until(() => busy.connection.inFlight.size === 10, 5000, 'ten tasks sent to one worker');
    const added = await addProcs(r.ctx, 2);
    const ran = await Promise.all(tasks);
    const perWorker = new Map<number, number>();
    for (const [w] of ran) perWorker.set(w, (perWorker.get(w) ?? 0) + 1);
    expect(ran.map(([, i]) => i)).toEqual([...Array(10).keys()]);
    for (const id of added) expect(perWorker.get(id) ?? 0).toBeGreaterThan(0);
    expect(perWorker.get(busy.worker)).toBeLessThan(10);
  }, 30_000);

  it('a chain sent ahead behind a busy task, taken by a new worker, still gives exact values', async () => {
    // Regression: the chain's tasks were handed back and parked on the new worker as if their
    // inputs existed; the first ran there with `undefined` for its input (a wrong value), the
    // next waited there for an input made elsewhere (a hang).
    await using r = await clusterRig({ workers: 1 });
    const [busy] = r.plugin.processWorkers();
    // Waits without blocking its worker, which answers the new worker's request meanwhile.
    const root = r.ctx.spawn(() => new Promise<number>((done) => setTimeout(() => done(0), 500)));
    const chain = [root];
    for (let i = 0; i < 10; i++) chain.push(r.ctx.spawn((x: number) => x + 1, chain[i]));
    await until(() => busy.connection.inFlight.size === 11, 5000, 'the chain sent ahead');
    await addProcs(r.ctx, 1);
    expect(await Promise.all(chain)).toEqual([...Array(11).keys()]);
  }, 30_000);
});

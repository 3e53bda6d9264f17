// Worker processes added while a job runs take their share of its queued work: tasks already
// queued on a busy worker process that have not started are handed back to the new ones
// (core's work stealing, `Executor.giveBack`). Needs the built dist.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { addProcs, everywhere } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, eventually, until } from './__fixtures__/rig.js';

type GateTasks = typeof import('./__fixtures__/gate-tasks.mjs');

const gateTasks = new URL('./__fixtures__/gate-tasks.mjs', import.meta.url);
/** Tasks queued on the busy worker: a minute of work if the gate never opened. */
const TASKS = 60;

describe('cluster: workers added mid-job', () => {
  it('take tasks queued on a busy worker process', async () => {
    await using r = await clusterRig({ workers: 1 });
    await everywhere(gateTasks, r.ctx);
    const { holdUntil } = (await import(gateTasks.href)) as GateTasks;
    const [busy] = r.plugin.processWorkers();
    // Each task holds its worker's thread until the gate file exists (a second at most, so that
    // the worker answers the scheduler between tasks): the tasks queue up on the one worker, and
    // whatever a loaded machine takes to start the new workers, most have not begun when they
    // join. The gate opens once each new worker holds some of them.
    const folder = mkdtempSync(join(tmpdir(), 'dtask-rebalance-'));
    const gate = join(folder, 'open');
    try {
      const tasks = Array.from({ length: TASKS }, (_, i) => r.ctx.spawn(holdUntil, gate, i));
      await eventually(() => busy.connection.inFlight.size === TASKS);
      const added = await addProcs(r.ctx, 2);
      const joined = () => r.plugin.processWorkers().filter((w) => added.includes(w.worker));
      await eventually(() => joined().every((w) => w.connection.inFlight.size > 0));
      writeFileSync(gate, '');
      const ran = await Promise.all(tasks);
      const perWorker = new Map<number, number>();
      for (const [w] of ran) perWorker.set(w, (perWorker.get(w) ?? 0) + 1);
      expect(ran.map(([, i]) => i)).toEqual([...Array(TASKS).keys()]);
      for (const id of added) expect(perWorker.get(id) ?? 0).toBeGreaterThan(0);
      expect(perWorker.get(busy.worker)).toBeLessThan(TASKS);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 120_000);

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

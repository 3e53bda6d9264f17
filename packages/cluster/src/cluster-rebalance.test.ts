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
    // Each task blocks its thread for 500 ms without using the CPU: ten queue up on one worker.
    const block = (i: number) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 500);
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
});

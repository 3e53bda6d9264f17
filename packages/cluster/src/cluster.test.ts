// Real worker processes: placement by worker, results moving between workers
// directly, nested spawns from a worker, addProcs, closing. Needs the built dist (worker
// processes run dist/worker-main.js).
import { ArgumentError, addProcs, rmProcs, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, sharedClusterRig } from './__fixtures__/rig.js';

const onWorker = (worker: number) => ({ scope: scope({ worker }) });

describe('cluster: worker processes', () => {
  describe('on one cluster of 2 worker processes', () => {
    // One cluster for the four tests: each looks only at its own tasks and their traffic.
    const shared = sharedClusterRig();

    it('runs tasks in separate processes, placed by scope({ worker }) and ({ worker, thread })', async () => {
      const r = shared();
      const ids = r.plugin.processWorkers().map((w) => w.worker);
      expect(ids).toHaveLength(2);
      const where = await Promise.all(
        ids.map((w) => r.ctx.spawn(onWorker(w), () => [process.pid, dtask.currentWorker()])),
      );
      expect(where.map(([, w]) => w)).toEqual(ids);
      expect(new Set(where.map(([pid]) => pid)).size).toBe(2);
      expect(where.map(([pid]) => pid)).not.toContain(process.pid);
      const exact = await r.ctx.spawn({ scope: scope({ worker: ids[1], thread: 1 }) }, () =>
        dtask.currentWorker(),
      );
      expect(exact).toBe(ids[1]);
      const pidsNow = r.plugin.processWorkers().map((w) => w.child?.pid);
      expect(pidsNow).toEqual(where.map(([pid]) => pid));
    });

    it('moves a result between workers directly, both ways: the scheduler never holds its bytes', async () => {
      const r = shared();
      const [a, b] = r.plugin.processWorkers();
      const traffic = () =>
        [a, b].reduce((n, w) => n + w.link!.socket.bytesRead + w.link!.socket.bytesWritten, 0);
      const MiB = 1024 * 1024;
      // One way lands on the side that opened the peer link, the other on the side that opened
      // the link back (each reads large frames in place there).
      for (const [from, to] of [
        [a, b],
        [b, a],
      ]) {
        const before = traffic();
        const made = r.ctx.spawn(
          onWorker(from.worker),
          (n) => new Float64Array(n).fill(1.5),
          (16 * MiB) / 8,
        );
        const sum = r.ctx.spawn(
          onWorker(to.worker),
          (x) => {
            let s = 0;
            for (let i = 0; i < x.length; i++) s += x[i];
            return s;
          },
          made,
        );
        expect(await sum).toBe(1.5 * 2 * MiB);
        // 16 MiB went from one worker to the other; the scheduler's links carried only messages.
        expect(traffic() - before).toBeLessThan(64 * 1024);
      }
    });

    it('runs a graph of 1,000 tasks across the workers and the main thread', async () => {
      const r = shared();
      const leaves = Array.from({ length: 1000 }, (_, i) => r.ctx.spawn((x) => x * 2, i));
      const total = r.ctx.spawn((...xs) => xs.reduce((s, x) => s + x, 0), ...leaves);
      expect(await total).toBe(999 * 1000);
    });

    it('a task on a worker spawns and awaits tasks of its own', async () => {
      const r = shared();
      const [w] = r.plugin.processWorkers();
      const got = await r.ctx.spawn(onWorker(w.worker), async () => {
        const inner = dtask.spawn((x) => x + 1, 41);
        return await inner;
      });
      expect(got).toBe(42);
    });
  });

  it('addProcs starts workers while work runs; rmProcs stops placing tasks on one', async () => {
    await using r = await clusterRig({ workers: 1 });
    const long = r.ctx.spawn(
      onWorker(r.plugin.processWorkers()[0].worker),
      () => new Promise((res) => setTimeout(() => res('long'), 300)),
    );
    const added = await addProcs(r.ctx, 1);
    expect(added).toHaveLength(1);
    expect(r.plugin.processWorkers().map((w) => w.worker)).toContain(added[0]);
    expect(await r.ctx.spawn(onWorker(added[0]), () => dtask.currentWorker())).toBe(added[0]);
    expect(await long).toBe('long');
    rmProcs(r.ctx, added);
    const scoped = r.ctx.spawn(onWorker(added[0]), () => 1);
    await expect(scoped).rejects.toThrow(/No processors|scope/i);
  });

  it('rejects bad options with ArgumentError', async () => {
    const { cluster } = await import('./index.js');
    expect(() => cluster({ workerz: 2 } as never)).toThrow(ArgumentError);
    expect(() => cluster({ workers: -1 })).toThrow(/integer ≥ 0/);
    expect(() => cluster({ listen: '127.0.0.1:7000' })).toThrow(/secret/);
    expect(() => cluster({ listen: '0.0.0.0:7000', secret: 'x'.repeat(32) })).toThrow(
      /allowRemote/,
    );
    expect(() => cluster({ listen: 'nowhere', secret: 'x'.repeat(32) })).toThrow(/host:port/);
    expect(() => cluster({ secret: 'short' })).toThrow(/16 characters/);
    expect(() => cluster({ heartbeatMs: 1000, heartbeatTimeoutMs: 500 })).toThrow(/longer/);
  });
});

declare const dtask: typeof import('@dtask/core');

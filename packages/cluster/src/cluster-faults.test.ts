// Worker processes that die: SIGKILL mid-graph, a process stopped with SIGSTOP
// (found by heartbeats), a chaos run with a random worker killed every 500 ms. Needs the
// built dist.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, eventually, replacementReady } from './__fixtures__/rig.js';

const sleepThen = (ms: number, v: number) =>
  new Promise<number>((resolve) => setTimeout(() => resolve(v), ms));

describe('cluster: faults', () => {
  // Found by heartbeats that time out after 2 s: not beside the others. The two after it kill
  // only their own clusters' processes and wait mostly on timers: they run side by side.
  it('a worker stopped with SIGSTOP is declared lost by heartbeats and its task runs elsewhere', async () => {
    // 2 s: a loaded machine can take most of a second to start a worker's heartbeat thread,
    // which must not count as a loss here; the stopped worker is still found well within 5 s.
    await using r = await clusterRig({ heartbeatMs: 100, heartbeatTimeoutMs: 2000 });
    const [stopped, other] = r.plugin.processWorkers();
    const pid = stopped.child!.pid!;
    // Waits on what happens, not on a time: both heartbeats running, then the task sent.
    await eventually(() => stopped.heartbeat !== undefined && other.heartbeat !== undefined);
    const task = r.ctx.spawn(
      { scope: scope({ workers: [stopped.worker, other.worker] }) },
      (ms: number) => new Promise((res) => setTimeout(() => res(process.pid), ms)),
      300,
    );
    await eventually(
      () => stopped.connection.inFlight.size > 0 || other.connection.inFlight.size > 0,
    );
    const holder = stopped.connection.inFlight.size > 0 ? stopped : other;
    process.kill(holder.child!.pid!, 'SIGSTOP');
    const ranOn = await task;
    // Found by its heartbeats (a stopped process closes nothing), and the task ran elsewhere.
    expect(ranOn).not.toBe(holder.child!.pid);
    expect(holder.exited).toBe(true);
    expect(holder.lostReason).toMatch(/heartbeat/);
    expect(pid).toBeGreaterThan(0);
  });

  it.concurrent('a worker process SIGKILLed mid-graph: its tasks run again, the result is exact, it is replaced', async ({
    expect,
  }) => {
    await using r = await clusterRig();
    const [victim] = r.plugin.processWorkers();
    const oldPid = victim.child!.pid!;
    const leaves = Array.from({ length: 40 }, (_, i) => r.ctx.spawn(sleepThen, 30, i));
    const total = r.ctx.spawn((...xs: number[]) => xs.reduce((s, x) => s + x, 0), ...leaves);
    await new Promise((res) => setTimeout(res, 100));
    process.kill(oldPid, 'SIGKILL');
    expect(await total).toBe((39 * 40) / 2);
    await replacementReady(r.plugin, victim.worker, oldPid, 'a replacement');
    const back = await r.ctx.spawn({ scope: scope({ worker: victim.worker }) }, () => process.pid);
    expect(back).not.toBe(oldPid);
  }, 60_000);

  it.concurrent('chaos: a 2,000-task DAG while a random worker process is SIGKILLed every 500 ms, 5 times', async ({
    expect,
  }) => {
    await using r = await clusterRig({ workers: 3 });
    // Only on the worker processes (ids survive replacement), each task taking 25 ms.
    const on = { scope: scope({ workers: r.plugin.processWorkers().map((w) => w.worker) }) };
    const inc = (x: number) => new Promise<number>((res) => setTimeout(() => res(x + 1), 25));
    const add = (...xs: number[]) => xs.reduce((s, x) => s + x, 0);
    // 20 chains of 50 increments, joined in pairs by sums, layer after layer.
    let layer = Array.from({ length: 20 }, (_, c) => {
      let t = r.ctx.spawn(on, inc, c);
      for (let i = 1; i < 50; i++) t = r.ctx.spawn(on, inc, t);
      return t;
    });
    let spawned = 20 * 50;
    while (spawned < 2000) {
      layer = layer.map((t) => r.ctx.spawn(on, inc, r.ctx.spawn(on, add, t, 0)));
      spawned += 2 * layer.length;
    }
    const root = r.ctx.spawn(on, add, ...layer);
    const rounds = Math.ceil((2000 - 1000) / 40);
    const expected = Array.from({ length: 20 }, (_, c) => c + 50 + rounds).reduce(
      (s, x) => s + x,
      0,
    );
    let kills = 0;
    const killer = setInterval(() => {
      const live = r.plugin.processWorkers().filter((w) => w.wasReady && w.child?.pid);
      if (kills >= 5 || live.length < 2) return;
      const w = live[Math.floor(Math.random() * live.length)];
      process.kill(w.child!.pid!, 'SIGKILL');
      kills++;
    }, 500);
    try {
      expect(await root).toBe(expected);
    } finally {
      clearInterval(killer);
    }
    expect(kills).toBe(5);
    // A hang's bound, not a speed check: about 6 s of CPU in all (eight worker processes
    // started), mostly waits on processes that a loaded machine runs late (28 s alone at load
    // 33; over 60 s beside a shuffled whole suite at load 33).
  }, 120_000);
});

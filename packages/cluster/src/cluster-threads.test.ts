// Threads inside worker processes (`cluster({ workers, threads })`): each worker
// process runs threads 2 … m+1 beside its main thread, so `scope({ worker, thread })` means
// what it means in Dagger; results move directly between threads of different processes; a
// process lost takes all its threads with it and is replaced whole. Needs the built dist.
import { spawn as spawnProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ArgumentError, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { clusterRig, replacementReady, sharedClusterRig, until } from './__fixtures__/rig.js';
import { cluster } from './index.js';

const bin = fileURLToPath(new URL('../dist/bin/dtask-worker.js', import.meta.url));
const SECRET = 'threads-test-secret-0123456789';

const on = (worker: number, thread: number) => ({ scope: scope({ worker, thread }) });

describe('cluster: threads inside worker processes', () => {
  describe('on one cluster of 2 worker processes with 2 threads each', () => {
    // The tests that only look at their own tasks share it; those that kill a process or start
    // their own workers have their own.
    const shared = sharedClusterRig({ workers: 2, threads: 2 });

    it('runs each task on the (worker, thread) its scope names, in that process', async () => {
      const r = shared();
      const ws = r.plugin.processWorkers();
      expect(ws.map((w) => w.procs.map((p) => p.id))).toEqual(
        ws.map((w) => [1, 2, 3].map((t) => `thread:${w.worker}:${t}`)),
      );
      const places = ws.flatMap((w) => [1, 2, 3].map((t) => [w.worker, t] as const));
      const seen = await Promise.all(
        places.map(([w, t]) =>
          r.ctx.spawn(on(w, t), () => [
            process.pid,
            dtask.currentWorker(),
            dtask.taskProcessor().id,
          ]),
        ),
      );
      seen.forEach(([pid, id, proc], i) => {
        const [w, t] = places[i];
        expect(pid).toBe(ws.find((x) => x.worker === w)!.child!.pid);
        expect(id).toBe(w);
        expect(proc).toBe(`thread:${w}:${t}`);
      });
      // Default-scoped work spreads over every thread of every process (and the main thread).
      const leaves = Array.from({ length: 400 }, (_, i) =>
        r.ctx.spawn((x) => {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // holds its thread 1 ms
          return [x, dtask.taskProcessor().id];
        }, i),
      );
      const ran = await Promise.all(leaves);
      expect(ran.map(([x]) => x)).toEqual(Array.from({ length: 400 }, (_, i) => i));
      const used = new Set(ran.map(([, p]) => p));
      // The extra threads (2 and 3) of the worker processes, whose ids the plugin gives (they
      // are counted per process, which other test files may have used).
      const extra = ws.flatMap((w) => [2, 3].map((t) => `thread:${w.worker}:${t}`));
      expect(extra.filter((p) => used.has(p)).length).toBeGreaterThan(0);
    });

    it('moves a result between threads of two processes directly, not through the scheduler', async () => {
      const r = shared();
      const [a, b] = r.plugin.processWorkers();
      const links = [a, b].flatMap((w) => [...w.members.values()].map((m) => m.link!));
      const traffic = () =>
        links.reduce((n, l) => n + l.socket.bytesRead + l.socket.bytesWritten, 0);
      const before = traffic();
      const made = r.ctx.spawn(on(a.worker, 2), (n) => new Float64Array(n).fill(0.5), 1 << 21);
      const sum = r.ctx.spawn(
        on(b.worker, 2),
        (x) => {
          let s = 0;
          for (let i = 0; i < x.length; i++) s += x[i];
          return s;
        },
        made,
      );
      expect(await sum).toBe(0.5 * (1 << 21));
      expect(traffic() - before).toBeLessThan(64 * 1024);
    });

    describe('task information inside worker processes', () => {
      it('taskProcessor and getDagIds work there, on the main thread of the process and its others', async () => {
        const r = shared();
        const [w] = r.plugin.processWorkers().map((p) => p.worker);
        for (const t of [1, 2]) {
          const a = r.ctx.spawn(on(w, t), () => 1);
          const d = r.ctx.spawn(
            on(w, t),
            (_x: number) => [dtask.taskProcessor().id, [...dtask.getDagIds(dtask.schHandle())]],
            a,
          );
          const [where, entries] = (await d) as [string, [number, Set<number>][]];
          expect(where).toBe(`thread:${w}:${t}`);
          const graph = new Map(entries);
          expect(graph.get(a.id)).toEqual(new Set([d.id]));
          expect(graph.get(d.id)).toEqual(new Set());
        }
      });
    });
  });

  // Two processes with a thread each started, one killed and started again: at load 40+ that
  // took longer than the default 30 s.
  it('a process killed loses all its threads; it is replaced whole and the graph finishes', async () => {
    await using r = await clusterRig({ workers: 2, threads: 1 });
    const [victim] = r.plugin.processWorkers();
    const oldPid = victim.child!.pid!;
    const slow = r.ctx.spawn(on(victim.worker, 2), () => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 300); // holds its thread
      return dtask.taskProcessor().id;
    });
    setTimeout(() => process.kill(oldPid, 'SIGKILL'), 100);
    // Re-run on the replacement process's thread 2 (same id, a new process).
    expect(await slow).toBe(`thread:${victim.worker}:2`);
    await replacementReady(r.plugin, victim.worker, oldPid, 'the replacement');
    const again = r.plugin.processWorkers().find((w) => w.worker === victim.worker)!;
    expect(again.procs.map((p) => p.id)).toEqual([1, 2].map((t) => `thread:${victim.worker}:${t}`));
  }, 60_000);

  it('dtask-worker --threads joins with its threads', async () => {
    await using r = await clusterRig({ workers: 0, listen: '127.0.0.1:0', secret: SECRET });
    const child = spawnProcess(
      process.execPath,
      [bin, '--connect', r.plugin.address()!, '--threads', '2'],
      { env: { ...process.env, DTASK_SECRET: SECRET }, stdio: 'inherit' },
    );
    try {
      await until(
        () => r.plugin.processWorkers().some((w) => w.wasReady),
        15_000,
        'the worker and its threads to join',
      );
      const [w] = r.plugin.processWorkers();
      const got = await r.ctx.spawn(on(w.worker, 3), () => [process.pid, dtask.taskProcessor().id]);
      expect(got).toEqual([child.pid, `thread:${w.worker}:3`]);
    } finally {
      child.kill('SIGKILL');
    }
  });

  it('threads must be an integer from 0 to 1023', () => {
    expect(() => cluster({ threads: -1 })).toThrow(ArgumentError);
    expect(() => cluster({ threads: 1.5 })).toThrow(/threads beside each worker's main thread/);
  });
});

declare const dtask: typeof import('@dtask/core');

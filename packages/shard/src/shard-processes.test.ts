// @dtask/shard on real worker processes (@dtask/cluster): one piece per process, Dagger's
// histogram, fetch and reduceShard across processes, a worker added later with addProcs, and
// a process SIGKILLed while its piece is in use. Needs the built dist of @dtask/cluster
// (worker processes run it).

import { type ClusterPlugin, cluster } from '@dtask/cluster';
import {
  ArgumentError,
  addProcs,
  Context,
  ExactScope,
  everywhere,
  OSProc,
  type Processor,
  WorkerLostError,
} from '@dtask/core';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { reduceShard, shard } from './index.js';

const TASKS_URL = new URL('./__fixtures__/shard-tasks.mjs', import.meta.url);
type Tasks = typeof import('./__fixtures__/shard-tasks.mjs');

const open: Context[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/** A cluster with the tasks module loaded; closed after the test unless `perTest` is false. */
async function rig(workers = 2, perTest = true) {
  const plugin: ClusterPlugin = cluster({ workers });
  const ctx = new Context({ plugins: [plugin] });
  if (perTest) open.push(ctx);
  await ctx.ready();
  await everywhere(TASKS_URL, ctx);
  const tasks = (await import('./__fixtures__/shard-tasks.mjs')) as Tasks;
  const ids = plugin.processWorkers().map((w) => w.worker);
  return { ctx, plugin, tasks, ids };
}

async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const on = (p: Processor) => ({ scope: new ExactScope(p) });
const byId = <V>(m: Map<Processor, V>) => new Map([...m].map(([p, v]) => [p.id, v]));

describe('shard on worker processes', () => {
  // One cluster for the tests that only make shards of their own on it (each a fresh shard, so
  // fresh pieces); the tests that add or kill a process start their own.
  describe('on one cluster of 2 worker processes', () => {
    let shared: Awaited<ReturnType<typeof rig>> | undefined;
    beforeAll(async () => {
      shared = await rig(2, false);
    });
    afterAll(() => shared?.ctx.close());
    const sharedRig = () => {
      if (shared === undefined) throw new Error('the shared cluster has not started');
      return shared;
    };

    it("Dagger's histogram across processes: one piece per process, distinct, summing to 520", async () => {
      const { ctx, tasks, ids } = sharedRig();
      const s = shard(tasks.makePiece, { context: ctx, workers: ids });
      expect(s.processors.map((p) => p.worker)).toEqual(ids);
      const ran = await Promise.all(
        Array.from({ length: 100 }, () => ctx.spawn(tasks.addInto, s, 5.2)),
      );
      const pieces = await s.fetch();
      expect(pieces.size).toBe(2);
      let sum = 0;
      for (const [proc, piece] of pieces) {
        sum += piece.total;
        expect(piece.madeOn).toBe(proc.id);
        expect(piece.seenOn).toEqual(piece.count > 0 ? [proc.id] : []);
        expect(ran.filter((id) => id === proc.id).length).toBe(piece.count);
      }
      expect(Math.abs(sum - 520)).toBeLessThan(1e-9);
      // Each piece lives in its own process, not in this one.
      const pids = [...pieces.values()].map((p) => p.pid);
      expect(new Set(pids).size).toBe(2);
      expect(pids).not.toContain(process.pid);
      expect(new Set(ran).size).toBe(2);
      expect(await reduceShard(s, tasks.totalOf, (a, b) => a + b)).toBeCloseTo(520, 9);
    });

    it('by default one piece per worker process, this one included; workers are validated', async () => {
      const { ctx, tasks, ids } = sharedRig();
      const s = shard(tasks.makePiece, { context: ctx });
      expect(s.processors.map((p) => p.worker).sort()).toEqual([1, ...ids].sort());
      // The main thread's piece is taken by tasks that name it (it is outside DefaultScope).
      const holders = s.processors;
      await Promise.all(holders.map((p, i) => ctx.spawn(on(p), tasks.addInto, s, i + 1)));
      const pieces = byId(await s.fetch());
      for (const [i, p] of holders.entries()) expect(pieces.get(p.id)?.total).toBe(i + 1);
      expect(new Set([...pieces.values()].map((p) => p.pid)).size).toBe(3);
      expect(await reduceShard(s, tasks.totalOf, (a, b) => a + b)).toBe(6);
      expect(() => shard(tasks.makePiece, { context: ctx, workers: [9] })).toThrow(ArgumentError);
      expect(() => shard(tasks.makePiece, { context: ctx, workers: [9] })).toThrow(
        `worker 9 does not exist; pass some of: 1, ${ids.join(', ')}`,
      );
      expect(() => shard(tasks.makePiece, { context: ctx, workers: [] })).toThrow(
        /workers must be a non-empty array/,
      );
    });

    it("procs: [new OSProc(w)] is that process's first thread, as in Dagger's own shard test", async () => {
      const { ctx, tasks, ids } = sharedRig();
      const [w] = ids;
      const s = shard(tasks.makePiece, { context: ctx, procs: [new OSProc(w), new OSProc(w)] });
      expect(s.processors.map((p) => p.id)).toEqual([`thread:${w}:1`]);
      const ran = await Promise.all(
        Array.from({ length: 4 }, () => ctx.spawn(tasks.addInto, s, 1)),
      );
      expect(ran).toEqual(Array(4).fill(`thread:${w}:1`));
      const pieces = byId(await s.fetch());
      expect([...pieces.keys()]).toEqual([`thread:${w}:1`]);
      expect(pieces.get(`thread:${w}:1`)?.total).toBe(4);
      expect(() => shard(tasks.makePiece, { context: ctx, procs: [new OSProc(9)] })).toThrow(
        /os:9 has no thread in this context/,
      );
    });
  });

  it('a worker process added later with addProcs gets its piece on first use', async () => {
    const { ctx, tasks, ids } = await rig(1);
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    await Promise.all(s.processors.map((p) => ctx.spawn(on(p), tasks.addInto, s, 1)));
    const [added] = await addProcs(ctx, 1);
    expect(added).toBeDefined();
    const late = s.processors.find((p) => p.worker === added);
    expect(late).toBeDefined();
    expect(String(s)).not.toContain(late?.id);
    expect(await ctx.spawn(on(late as Processor), tasks.addInto, s, 5)).toBe(late?.id);
    const pieces = byId(await s.fetch());
    expect([...pieces.keys()].sort()).toEqual(
      ['thread:1:1', `thread:${ids[0]}:1`, `thread:${added}:1`].sort(),
    );
    expect(pieces.get(late?.id as string)?.total).toBe(5);
    expect(pieces.get(`thread:${ids[0]}:1`)?.total).toBe(1);
  });

  it('a process SIGKILLed while its piece is in use: the task fails with WorkerLostError, the piece is rebuilt and reported', async () => {
    const { ctx, plugin, tasks, ids } = await rig();
    const s = shard(tasks.makePiece, { context: ctx, workers: ids });
    const [victim, other] = s.processors as [Processor, Processor];
    await Promise.all([
      ctx.spawn(on(victim), tasks.addInto, s, 10),
      ctx.spawn(on(other), tasks.addInto, s, 10),
    ]);
    const worker = plugin.processWorkers().find((w) => w.worker === victim.worker);
    const oldPid = worker?.child?.pid as number;
    const using = ctx.spawn(on(victim), tasks.addThenWait, s, 5, 10_000);
    await new Promise((r) => setTimeout(r, 300));
    process.kill(oldPid, 'SIGKILL');
    const error = await using.fetch().catch((e: unknown) => e);
    let lost: unknown = error;
    while (lost && !WorkerLostError.isInstance(lost)) lost = (lost as Error).cause;
    expect(WorkerLostError.isInstance(lost)).toBe(true);
    await until(() => s.rebuilt().length === 1, 15_000, 'the loss to be reported');
    expect(s.rebuilt()[0]?.id).toBe(victim.id);
    await until(
      () =>
        plugin
          .processWorkers()
          .some((w) => w.worker === victim.worker && w.wasReady && w.child?.pid !== oldPid),
      15_000,
      'a replacement process',
    );
    // Made again by f() in the new process, empty; the other process keeps its state.
    expect(await ctx.spawn(on(victim), tasks.addInto, s, 1)).toBe(victim.id);
    const pieces = byId(await s.fetch());
    expect(pieces.get(victim.id)?.total).toBe(1);
    expect(pieces.get(victim.id)?.pid).not.toBe(oldPid);
    expect(pieces.get(other.id)?.total).toBe(10);
    expect(s.rebuilt().length).toBe(1);
  });
});

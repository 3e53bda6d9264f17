// @dtask/shard on real worker threads: Dagger's histogram, distinct pieces per thread,
// validation, fetch and reduceShard, and a thread killed while its piece is in use.
// Needs the built dist of @dtask/threads (worker threads load it).
import {
  ArgumentError,
  addProcs,
  Context,
  everywhere,
  rmProcs,
  SchedulingError,
  scope,
  ThreadProc,
  WorkerLostError,
} from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it } from 'vitest';
import { reduceShard, shard } from './index.js';

const TASKS_URL = new URL('./__fixtures__/shard-tasks.mjs', import.meta.url);
type Tasks = typeof import('./__fixtures__/shard-tasks.mjs');

const open: Context[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function rig() {
  const plugin = threads({ count: 2 });
  const ctx = new Context({ plugins: [plugin] });
  open.push(ctx);
  await ctx.ready();
  await everywhere(TASKS_URL, ctx);
  const tasks = (await import('./__fixtures__/shard-tasks.mjs')) as Tasks;
  // The main thread and the 2 worker threads.
  const threadProcs = ctx.processors().filter((p) => p instanceof ThreadProc) as ThreadProc[];
  return { ctx, plugin, tasks, threadProcs };
}

async function until(check: () => boolean, ms = 10_000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

describe('shard on threads', () => {
  it("Dagger's histogram: 100 tasks add 5.2 into their local piece; the pieces sum to 520", async () => {
    const { ctx, tasks, threadProcs } = await rig();
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    const ids = s.processors.map((p) => p.id).sort();
    expect(ids).toEqual(
      ctx
        .processors()
        .map((p) => p.id)
        .sort(),
    );
    expect(threadProcs.length).toBe(3);
    const ran = await Promise.all(
      Array.from({ length: 100 }, () => s.spawn({}, tasks.addInto, 5.2)),
    );
    const pieces = await s.fetch();
    let sum = 0;
    let count = 0;
    for (const [proc, piece] of pieces) {
      sum += piece.total;
      count += piece.count;
      // Each piece was made where it lives and only ever touched there.
      expect(piece.madeOn).toBe(proc.id);
      expect(piece.seenOn.every((id) => id === proc.id)).toBe(true);
    }
    expect(count).toBe(100);
    expect(Math.abs(sum - 520)).toBeLessThan(1e-9);
    // The work spread over the threads, and each thread's piece is its own.
    for (const t of threadProcs) expect(ran).toContain(t.id);
    const madeOn = [...pieces.values()].map((p) => p.madeOn);
    expect(new Set(madeOn).size).toBe(pieces.size);
  });

  it('one piece per worker by default; procs puts one on each listed processor', async () => {
    const { ctx, tasks, threadProcs } = await rig();
    const perWorker = shard(tasks.makePiece, { context: ctx });
    expect(perWorker.processors.length).toBe(1);
    expect((await perWorker.fetch()).size).toBe(1);
    const one = threadProcs[1] as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, procs: [one] });
    expect(await s.spawn({}, tasks.addInto, 1)).toBe(one.id);
    const byWorker = shard(tasks.makePiece, { context: ctx, workers: [1], perThread: true });
    expect(byWorker.processors.length).toBe(ctx.processors().length);
  });

  it('fetch and reduceShard: the sum over pieces is computed where they live', async () => {
    const { ctx, tasks } = await rig();
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    await Promise.all(Array.from({ length: 10 }, (_, i) => s.spawn({}, tasks.addInto, i)));
    const total = await reduceShard(s, tasks.totalOf, (a, b) => a + b);
    expect(total).toBe(45);
    const fetched = await s.fetch();
    expect([...fetched.values()].reduce((a, p) => a + p.total, 0)).toBe(45);
    s.release();
    expect(() => s.spawn({}, tasks.addInto, 1)).toThrow(ArgumentError);
  });

  it('validation errors at the call say what to pass', async () => {
    const { ctx, tasks, threadProcs } = await rig();
    const bad = (options: object) => () => shard(tasks.makePiece, { context: ctx, ...options });
    expect(bad({ procs: [] })).toThrow(/procs must be a non-empty array/);
    expect(bad({ workers: [] })).toThrow(/workers must be a non-empty array/);
    expect(bad({ procs: [threadProcs[0]], workers: [1] })).toThrow(/either procs .* or workers/);
    expect(bad({ procs: [threadProcs[0]], perThread: true })).toThrow(/perThread does not apply/);
    expect(bad({ procs: [new ThreadProc(1, 99)] })).toThrow(
      /thread:1:99 does not exist.*pass some of/,
    );
    expect(bad({ workers: [7] })).toThrow(/worker 7 does not exist; pass some of: 1/);
    for (const o of [{ procs: [] }, { workers: [7] }]) {
      expect(bad(o)).toThrow(ArgumentError);
    }
    expect(() => shard(42 as never, { context: ctx })).toThrow(ArgumentError);
  });

  it('a task whose scope allows no processor with a piece fails with SchedulingError naming the holders', async () => {
    const { ctx, tasks, threadProcs } = await rig();
    const holder = threadProcs[0] as ThreadProc;
    const other = threadProcs[1] as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, procs: [holder] });
    let error: unknown;
    try {
      s.spawn({ scope: scope({ worker: 1, thread: other.thread }) }, tasks.addInto, 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(SchedulingError);
    expect((error as Error).message).toContain(holder.id);
    expect(
      await s.spawn({ scope: scope({ worker: 1, thread: holder.thread }) }, tasks.addInto, 1),
    ).toBe(holder.id);
  });

  it('a thread killed while its piece is in use: the task fails with WorkerLostError, the piece is rebuilt and reported', async () => {
    const { ctx, plugin, tasks, threadProcs } = await rig();
    // A worker thread (not the main thread, which the test runs on).
    const victim = plugin.threadWorkers()[0]?.proc as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    await Promise.all(
      threadProcs.map((p) =>
        s.spawn(
          { scope: scope({ worker: 1, thread: (p as ThreadProc).thread }) },
          tasks.addInto,
          10,
        ),
      ),
    );
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const onVictim = { scope: scope({ worker: 1, thread: victim.thread }) };
    const hanging = s.spawn(onVictim, tasks.addThenHang, 5, flags);
    await until(() => Atomics.load(flags, 1) === 1, 10_000, 'the task to start');
    const worker = plugin.threadWorkers().find((w) => w.proc.id === victim.id);
    await worker?.worker.terminate();
    const error = await hanging.fetch().then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeDefined();
    let cause: unknown = error;
    while (cause && !(cause instanceof WorkerLostError)) cause = (cause as Error).cause;
    expect(cause).toBeInstanceOf(WorkerLostError);
    await until(() => s.rebuilt().length === 1, 10_000, 'the loss to be reported');
    expect(s.rebuilt().map((p) => p.id)).toEqual([victim.id]);
    // The rebuilt piece starts empty on the replacement thread; the other keeps its state.
    expect(await s.spawn(onVictim, tasks.addInto, 1)).toBe(victim.id);
    const pieces = new Map([...(await s.fetch())].map(([p, v]) => [p.id, v]));
    expect(pieces.get(victim.id)?.total).toBe(1);
    for (const p of threadProcs) if (p.id !== victim.id) expect(pieces.get(p.id)?.total).toBe(10);
  });

  it('a thread that dies while idle: its piece is reported as rebuilt and remade empty on first use', async () => {
    const { ctx, plugin, tasks } = await rig();
    const victim = plugin.threadWorkers()[1]?.proc as ThreadProc;
    const onVictim = { scope: scope({ worker: 1, thread: victim.thread }) };
    const s = shard(tasks.makePiece, { context: ctx, procs: [victim] });
    await s.spawn(onVictim, tasks.addInto, 7);
    expect(s.rebuilt()).toEqual([]);
    const old = plugin.threadWorkers().find((w) => w.proc.id === victim.id);
    await old?.worker.terminate();
    await until(() => s.rebuilt().length === 1, 10_000, 'the idle loss to be reported');
    expect(s.rebuilt()[0]?.id).toBe(victim.id);
    await s.spawn(onVictim, tasks.addInto, 2);
    expect([...(await s.fetch()).values()].map((p) => p.total)).toEqual([2]);
  });

  it('a processor added later gets its piece on first use', async () => {
    const { ctx, plugin, tasks } = await rig();
    const late = plugin.threadWorkers()[1]?.proc as ThreadProc;
    rmProcs(ctx, [late]);
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    expect(s.processors.map((p) => p.id)).not.toContain(late.id);
    await addProcs(ctx, [late]);
    expect(s.processors.map((p) => p.id)).toContain(late.id);
    const onLate = { scope: scope({ worker: 1, thread: late.thread }) };
    expect(await s.spawn(onLate, tasks.addInto, 3)).toBe(late.id);
    expect((await s.fetch()).size).toBe(ctx.processors().length);
  });
});

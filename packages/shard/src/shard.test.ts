// @dtask/shard on real worker threads: Dagger's histogram, distinct pieces per thread,
// validation, fetch and reduceShard, a thread killed while its piece is in use, processors
// added later, and pieces freed. Tasks take the shard with ordinary spawn (API.md).
// Needs the built dist of @dtask/threads (worker threads load it).
import {
  ArgumentError,
  addProcs,
  Context,
  configure,
  DTaskFailedError,
  ExactScope,
  everywhere,
  type Processor,
  rmProcs,
  SchedulingError,
  scope,
  shutdown,
  ThreadProc,
  WorkerLostError,
} from '@dtask/core';
import { FakeProcessor, fakeProcessorPlugin } from '@dtask/core/testing';
import { threads } from '@dtask/threads';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { reduceShard, Shard, shard } from './index.js';

const TASKS_URL = new URL('./__fixtures__/shard-tasks.mjs', import.meta.url);
type Tasks = typeof import('./__fixtures__/shard-tasks.mjs');

const open: Context[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

/**
 * A context of 2 worker threads with the tasks module loaded; closed after the test unless
 * `perTest` is false.
 */
async function rig(perTest = true) {
  const plugin = threads({ count: 2 });
  const ctx = new Context({ plugins: [plugin] });
  if (perTest) open.push(ctx);
  await ctx.ready();
  await everywhere(TASKS_URL, ctx);
  const tasks = (await import('./__fixtures__/shard-tasks.mjs')) as Tasks;
  // The main thread and the 2 worker threads.
  const threadProcs = ctx.processors().filter((p) => p instanceof ThreadProc) as ThreadProc[];
  return { ctx, plugin, tasks, threadProcs };
}

async function until(check: () => boolean | Promise<boolean>, ms = 10_000, what = 'condition') {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

/** The first error in `error`'s cause chain that `is` recognises. */
function causeOf(error: unknown, is: (e: unknown) => boolean): unknown {
  for (let e = error; e; e = (e as { cause?: unknown }).cause) if (is(e)) return e;
  return undefined;
}

const on = (p: Processor) => ({ scope: new ExactScope(p) });
const byId = <V>(m: Map<Processor, V>) => new Map([...m].map(([p, v]) => [p.id, v]));

describe('shard on threads', () => {
  // One context for the tests that only make shards of their own in it (fresh shards, fresh
  // pieces): started by the first that asks, closed after the last. The tests that end a
  // thread, remove one or count the pieces alive on the threads make their own.
  let started: ReturnType<typeof rig> | undefined;
  const shared = () => (started ??= rig(false));
  afterAll(async () => (await started?.catch(() => undefined))?.ctx.close());

  it("Dagger's histogram: 100 tasks add 5.2 into their local piece; the pieces sum to 520", async () => {
    const { ctx, tasks, threadProcs } = await shared();
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    // Returned at once, as a Chunk that ordinary spawn takes.
    expect(s).toBeInstanceOf(Shard);
    expect(threadProcs.length).toBe(3);
    expect(s.processors.map((p) => p.id).sort()).toEqual(threadProcs.map((p) => p.id).sort());
    // Every piece made first: while a worker thread's piece is still being made, the tasks may
    // all run on the main thread's piece (a loaded machine slows the threads' starts), and the
    // spread checked below would be the machine's timing rather than the placement's.
    expect((await s.fetch()).size).toBe(3);
    const ran = await Promise.all(
      Array.from({ length: 100 }, () => ctx.spawn(tasks.addInto, s, 5.2)),
    );
    const pieces = await s.fetch();
    expect(pieces.size).toBe(3);
    let sum = 0;
    let count = 0;
    for (const [proc, piece] of pieces) {
      sum += piece.total;
      count += piece.count;
      // Each piece was made where it lives and only ever touched there.
      expect(piece.madeOn).toBe(proc.id);
      expect(piece.seenOn.every((id) => id === proc.id)).toBe(true);
      expect(ran.filter((id) => id === proc.id).length).toBe(piece.count);
    }
    expect(count).toBe(100);
    expect(Math.abs(sum - 520)).toBeLessThan(1e-9);
    // Distinct pieces, and the work spread over more than one thread.
    expect(new Set([...pieces.values()].map((p) => p.madeOn)).size).toBe(3);
    expect(new Set(ran).size).toBeGreaterThan(1);
  });

  it('one piece per worker by default; procs and workers + perThread say where', async () => {
    const { ctx, tasks, threadProcs } = await shared();
    const perWorker = shard(tasks.makePiece, { context: ctx });
    expect(perWorker.processors.map((p) => p.id)).toEqual(['thread:1:1']);
    expect(await ctx.spawn(tasks.addInto, perWorker, 1)).toBe('thread:1:1');
    const one = threadProcs[1] as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, procs: [one] });
    expect(await ctx.spawn(tasks.addInto, s, 1)).toBe(one.id);
    expect([...(await s.fetch()).keys()].map((p) => p.id)).toEqual([one.id]);
    const byWorker = shard(tasks.makePiece, { context: ctx, workers: [1], perThread: true });
    expect(byWorker.processors.length).toBe(3);
    // The convenience method is spawn with the shard first.
    expect(await s.spawn({ name: 'alias' }, tasks.addInto, 2)).toBe(one.id);
    expect([...(await s.fetch()).values()][0]?.total).toBe(3);
  });

  it("a worker's other processors (a device's, here a fake one) get a piece only when procs names them", async () => {
    const device = new FakeProcessor({ worker: 1, defaultEnabled: true }); // 'fake:1:…' sorts first
    const ctx = new Context({ plugins: [threads({ count: 2 }), fakeProcessorPlugin([device])] });
    open.push(ctx);
    await ctx.ready();
    const ids = (s: Shard<unknown>) => s.processors.map((p) => p.id);
    expect(ids(shard(() => ({ total: 0 }), { context: ctx }))).toEqual(['thread:1:1']);
    expect(ids(shard(() => ({ total: 0 }), { context: ctx, perThread: true }))).toEqual([
      'thread:1:1',
      'thread:1:2',
      'thread:1:3',
    ]);
    expect(ids(shard(() => ({ total: 0 }), { context: ctx, procs: [device] }))).toEqual([
      device.id,
    ]);
  });

  it('tasks spawned while the pieces are being made wait for them; a failed piece fails its tasks', async () => {
    const { ctx, tasks, threadProcs } = await shared();
    const s = shard(tasks.slowPiece, { context: ctx, perThread: true });
    const ran = await Promise.all(threadProcs.map((p) => ctx.spawn(on(p), tasks.addInto, s, 1)));
    expect(ran).toEqual(threadProcs.map((p) => p.id));
    const pieces = byId(await s.fetch());
    for (const p of threadProcs) expect(pieces.get(p.id)?.total).toBe(1);
    const broken = shard(tasks.brokenPiece, { context: ctx, perThread: true });
    const error = await ctx.spawn(tasks.addInto, broken, 1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect(String((error as DTaskFailedError).cause)).toMatch(/no piece today/);
  });

  it('fetch and reduceShard: the sum over pieces is computed where they live', async () => {
    const { ctx, tasks } = await shared();
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    await Promise.all(Array.from({ length: 10 }, (_, i) => ctx.spawn(tasks.addInto, s, i)));
    const total = await reduceShard(s, tasks.totalOf, (a, b) => a + b);
    expect(total).toBe(45);
    const fetched = await s.fetch();
    expect([...fetched.keys()].every((p) => p instanceof ThreadProc)).toBe(true);
    expect([...fetched.values()].reduce((a, p) => a + p.total, 0)).toBe(45);
    // Fetched pieces of worker threads are copies: the pieces stay where they are.
    for (const [proc, piece] of fetched) {
      if (proc.id !== 'thread:1:1') piece.total += 1000;
    }
    expect(await reduceShard(s, tasks.totalOf, (a, b) => a + b)).toBe(45);
  });

  it('validation errors at the call say what to pass', async () => {
    const { ctx, tasks, threadProcs } = await shared();
    const bad = (options: object) => () => shard(tasks.makePiece, { context: ctx, ...options });
    const cases: [object, RegExp][] = [
      [{ procs: [] }, /procs must be a non-empty array of processors; pass some of: thread:1:1/],
      [{ workers: [] }, /workers must be a non-empty array of worker numbers; pass some of: 1/],
      [{ procs: [threadProcs[0]], workers: [1] }, /pass either procs .* or workers, not both/],
      [{ procs: [threadProcs[0]], perThread: true }, /perThread does not apply to procs/],
      [{ procs: [new ThreadProc(1, 99)] }, /thread:1:99 does not exist.*pass some of/],
      [{ workers: [7] }, /worker 7 does not exist; pass some of: 1/],
      [{ workers: ['1'] }, /workers are worker numbers \(integers\); got 1/],
      [{ perThread: 'yes' }, /perThread must be true or false/],
      [{ perthread: true }, /unknown option 'perthread'/],
      [{ context: 3 }, /context must be a Context/],
    ];
    for (const [options, message] of cases) {
      expect(bad(options)).toThrow(ArgumentError);
      expect(bad(options)).toThrow(message);
    }
    expect(() => shard(42 as never, { context: ctx })).toThrow(/f must be a function/);
    const s = shard(tasks.makePiece, { context: ctx });
    await expect(reduceShard(s, 1 as never, (a: number, b: number) => a + b)).rejects.toThrow(
      ArgumentError,
    );
    s.release();
    expect(() => s.spawn({}, tasks.addInto, 1)).toThrow(/after release\(\)/);
    const late = ctx.spawn(tasks.addInto, s, 1);
    const error = await late.fetch().catch((e: unknown) => e);
    expect(causeOf(error, (e) => e instanceof ArgumentError)).toBeDefined();
  });

  it('after shutdown(), shard on the default context is refused as spawn is, until configure()', async () => {
    configure();
    await shutdown();
    expect(() => shard(() => ({ total: 0 }))).toThrow(ArgumentError);
    expect(() => shard(() => ({ total: 0 }))).toThrow(/shut down.*call configure/);
    configure();
    const s = shard(() => ({ total: 0 }));
    expect([...(await s.fetch()).values()]).toEqual([{ total: 0 }]);
    await shutdown();
    configure();
  });

  it('a task whose scope allows no processor with a piece fails with SchedulingError naming the holders', async () => {
    const { ctx, tasks, threadProcs } = await shared();
    const holder = threadProcs[1] as ThreadProc;
    const other = threadProcs[2] as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, procs: [holder] });
    const task = ctx.spawn(
      { scope: scope({ worker: 1, thread: other.thread }) },
      tasks.addInto,
      s,
      1,
    );
    const error = await task.fetch().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DTaskFailedError);
    const cause = causeOf(error, (e) => SchedulingError.isInstance(e)) as Error;
    expect(cause).toBeDefined();
    expect(cause.message).toContain(`processors holding pieces of chunk argument 0`);
    expect(cause.message).toContain(holder.id);
    expect(cause.message).toMatch(/do not intersect/);
    expect(await ctx.spawn(on(holder), tasks.addInto, s, 1)).toBe(holder.id);
  });

  it('a thread killed while its piece is in use: the task fails with WorkerLostError, the piece is rebuilt and reported', async () => {
    const { ctx, plugin, tasks, threadProcs } = await rig();
    const victim = plugin.threadWorkers()[0]?.proc as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    await Promise.all(threadProcs.map((p) => ctx.spawn(on(p), tasks.addInto, s, 10)));
    const flags = new Int32Array(new SharedArrayBuffer(8));
    const hanging = ctx.spawn(on(victim), tasks.addThenHang, s, 5, flags);
    await until(() => Atomics.load(flags, 1) === 1, 10_000, 'the task to start');
    expect(s.rebuilt()).toEqual([]);
    const worker = plugin.threadWorkers().find((w) => w.proc.id === victim.id);
    await worker?.worker.terminate();
    const error = await hanging.fetch().catch((e: unknown) => e);
    const lost = causeOf(error, (e) => WorkerLostError.isInstance(e)) as Error;
    expect(lost).toBeDefined();
    expect(lost.message).toMatch(/not re-run/);
    await until(() => s.rebuilt().length === 1, 10_000, 'the loss to be reported');
    expect(s.rebuilt().map((p) => p.id)).toEqual([victim.id]);
    // The rebuilt piece starts empty on the replacement thread; the others keep their state.
    expect(await ctx.spawn(on(victim), tasks.addInto, s, 1)).toBe(victim.id);
    const pieces = byId(await s.fetch());
    expect(pieces.get(victim.id)?.total).toBe(1);
    expect(pieces.get(victim.id)?.count).toBe(1);
    for (const p of threadProcs) if (p.id !== victim.id) expect(pieces.get(p.id)?.total).toBe(10);
    expect(await reduceShard(s, tasks.totalOf, (a, b) => a + b)).toBe(21);
    expect(s.rebuilt().length).toBe(1);
  });

  it('a thread that dies while idle: its piece is reported as rebuilt and remade empty on first use', async () => {
    const { ctx, plugin, tasks } = await rig();
    const victim = plugin.threadWorkers()[1]?.proc as ThreadProc;
    const s = shard(tasks.makePiece, { context: ctx, procs: [victim] });
    await ctx.spawn(tasks.addInto, s, 7);
    expect(s.rebuilt()).toEqual([]);
    const old = plugin.threadWorkers().find((w) => w.proc.id === victim.id);
    await old?.worker.terminate();
    await until(() => s.rebuilt().length === 1, 10_000, 'the idle loss to be reported');
    expect(s.rebuilt()[0]?.id).toBe(victim.id);
    // Default-placed: the task goes where the piece is, which is made again there first.
    expect(await ctx.spawn(tasks.addInto, s, 2)).toBe(victim.id);
    expect([...(await s.fetch()).values()].map((p) => p.total)).toEqual([2]);
  });

  it('a processor added later gets its piece on first use', async () => {
    const { ctx, plugin, tasks } = await rig();
    const late = plugin.threadWorkers()[1]?.proc as ThreadProc;
    rmProcs(ctx, [late]);
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    expect(s.processors.map((p) => p.id)).not.toContain(late.id);
    expect(String(s)).not.toContain(late.id);
    await addProcs(ctx, [late]);
    expect(s.processors.map((p) => p.id)).toContain(late.id);
    expect(await ctx.spawn(on(late), tasks.addInto, s, 3)).toBe(late.id);
    const pieces = byId(await s.fetch());
    expect(pieces.size).toBe(3);
    expect(pieces.get(late.id)?.madeOn).toBe(late.id);
  });
});

const gc = (globalThis as { gc?: () => void }).gc;

describe.runIf(gc)('shard pieces are freed', () => {
  /** Pieces still alive on each thread (after a collection there). */
  async function live(ctx: Context, tasks: Tasks, procs: Processor[]): Promise<number> {
    gc?.();
    await new Promise((r) => setTimeout(r, 10));
    const counts = await Promise.all(procs.map((p) => ctx.spawn(on(p), tasks.livePieces)));
    return counts.reduce((a, b) => a + b, 0);
  }

  it('when the shard is released, and when it is collected', async () => {
    const { ctx, tasks, threadProcs } = await rig();
    expect(await live(ctx, tasks, threadProcs)).toBe(0);
    const s = shard(tasks.makePiece, { context: ctx, perThread: true });
    await Promise.all(threadProcs.map((p) => ctx.spawn(on(p), tasks.addInto, s, 1)));
    expect(await live(ctx, tasks, threadProcs)).toBe(3);
    s.release();
    await until(async () => (await live(ctx, tasks, threadProcs)) === 0, 10_000, 'release');
    await (async () => {
      const dropped = shard(tasks.makePiece, { context: ctx, perThread: true });
      expect(await reduceShard(dropped, tasks.totalOf, (a, b) => a + b)).toBe(0);
    })();
    await until(async () => (await live(ctx, tasks, threadProcs)) === 0, 10_000, 'collection');
  });
});

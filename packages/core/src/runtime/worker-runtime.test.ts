import { afterEach, describe, expect, it, vi } from 'vitest';
import type { LocalStore } from '../chunk/local-store.js';
import {
  DTaskFailedError,
  ExactScope,
  getOptions,
  type ThreadProc,
  withOptions,
} from '../index.js';
import { inMemoryTransportPair } from '../protocol/in-memory-transport.js';
import type { DTask } from '../task/dtask.js';
import { RemoteResult } from '../task/remote-result.js';
import { type InMemoryRig, inMemoryRig } from '../testing/in-memory-rig.js';

/** A context with `n` in-memory worker runtimes as threads 2..n+1, peers connected. */
function rig(n: number, store?: () => LocalStore): InMemoryRig {
  return inMemoryRig(n, { store });
}

// Functions shipped as source may use only globals (vitest rewrites imports inside them), so
// the tests reach the API through a global, as a self-contained user function would.
const core = await import('../index.js');
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

const on = (proc: ThreadProc) => ({ scope: new ExactScope(proc) });

/** A Map that records `hold`/`unhold` (a store that keeps values in use in memory). */
class HoldingStore extends Map<number, unknown> implements LocalStore {
  readonly log: ['hold' | 'unhold', number][] = [];
  private readonly holds = new Map<number, number>();
  hold(key: number) {
    this.log.push(['hold', key]);
    this.holds.set(key, (this.holds.get(key) ?? 0) + 1);
  }
  unhold(key: number) {
    this.log.push(['unhold', key]);
    const n = (this.holds.get(key) ?? 0) - 1;
    if (n > 0) this.holds.set(key, n);
    else this.holds.delete(key);
  }
  heldNow(): number[] {
    return [...this.holds.keys()].sort();
  }
}

/** A Map whose backlog (a spilling store over its limit) a test opens and closes. */
class GatedStore extends Map<number, unknown> implements LocalStore {
  reads = 0;
  blocked = false;
  private readonly waiters: (() => void)[] = [];
  override get(key: number) {
    this.reads++;
    return super.get(key);
  }
  backlog() {
    if (!this.blocked) return undefined;
    return new Promise<void>((resolve) => {
      this.waiters.push(resolve);
    });
  }
  unblock() {
    this.blocked = false;
    for (const open of this.waiters.splice(0)) open();
  }
}

describe('worker runtime over an in-memory transport', () => {
  it('runs tasks in the runtime, which knows its processor', async () => {
    const { ctx, procs } = (current = rig(1));
    const t = ctx.spawn(on(procs[0]), (x: number) => [x * 2, dtask.taskProcessor().id], 21);
    expect(await t).toEqual([42, 'thread:1:2']);
  });

  it('default-scoped tasks go to worker threads, not the main thread', async () => {
    const { ctx } = (current = rig(2));
    const where = await Promise.all(
      Array.from({ length: 20 }, () => ctx.spawn(() => dtask.taskProcessor().id)),
    );
    expect(where.every((id) => id !== 'thread:1:1')).toBe(true);
    expect(new Set(where).size).toBe(2);
  });

  it('keeps big results where they were made and moves them only on fetch', async () => {
    const { ctx, procs, runtimes } = (current = rig(1));
    const big = ctx.spawn(on(procs[0]), () => new Float64Array(1000).fill(3));
    await big.wait();
    const task = big as unknown as DTask<Float64Array>;
    expect(task.value).toBeInstanceOf(RemoteResult);
    expect(runtimes[0].store.size).toBe(1);
    const value = await big;
    expect(value).toBeInstanceOf(Float64Array);
    expect(value[999]).toBe(3);
  });

  it('a dependent on the same worker uses the local result; small results come back inline', async () => {
    const { ctx, procs } = (current = rig(1));
    const a = ctx.spawn(on(procs[0]), () => new Float64Array(1000).fill(1));
    const b = ctx.spawn(on(procs[0]), (xs: Float64Array) => xs.reduce((s, x) => s + x, 0), a);
    expect(await b).toBe(1000);
    expect((b as unknown as DTask).value).toBe(1000);
  });

  it('a small result whose resultScope is exactly its processor stays there; dependents there get that object', async () => {
    const { ctx, procs, runtimes } = (current = rig(1));
    const here = { ...on(procs[0]), resultScope: new ExactScope(procs[0]) };
    const state = ctx.spawn(here, () => ({ n: 0 }));
    await state.wait();
    expect((state as unknown as DTask).value).toBeInstanceOf(RemoteResult);
    expect(runtimes[0].store.size).toBe(1);
    const bump = (s: { n: number }) => ++s.n;
    await ctx.spawn(on(procs[0]), bump, state);
    expect(await ctx.spawn(on(procs[0]), bump, state)).toBe(2); // mutated in place, not copied
    expect(await state).toEqual({ n: 2 });
  });

  it('moves a result from one worker to another directly (peer to peer)', async () => {
    const { ctx, procs } = (current = rig(2));
    const a = ctx.spawn(on(procs[0]), () => new Float64Array(500).fill(2));
    const b = ctx.spawn(
      on(procs[1]),
      (xs: Float64Array) => [xs.length, xs[0], dtask.taskProcessor().id],
      a,
    );
    expect(await b).toEqual([500, 2, procs[1].id]);
  });

  it('a runtime working through a run of long tasks serves a peer between them (regression: a busy thread kept the blocks it held from its peer until its run was done)', async () => {
    const { ctx, procs } = (current = rig(2));
    const held = ctx.spawn(on(procs[0]), () => new Float64Array(500).fill(3));
    await held.wait();
    const busy = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
      return performance.now();
    };
    const run = Array.from({ length: 6 }, () => ctx.spawn(on(procs[0]), busy, 15));
    const reader = ctx.spawn(on(procs[1]), (xs: Float64Array) => [xs[0], performance.now()], held);
    const [value, readAt] = (await reader) as number[];
    expect(value).toBe(3);
    const ends = (await Promise.all(run)) as number[];
    // The peer got the result before the run ended, not after all of it.
    expect(readAt).toBeLessThan(Math.max(...ends));
  });

  for (const closes of [true, false]) {
    it(`a fetch asked over a peer link that is then replaced is retried${closes ? ', the old link closing after' : ', the old link never closing'} (regression: chaos-test hangs)`, async () => {
      const { ctx, procs, runtimes } = (current = rig(2));
      const [two, three] = runtimes;
      const a = ctx.spawn(on(procs[1]), () => new Float64Array(500).fill(3)); // held by thread 3
      await a.wait();
      // Thread 2's link to thread 3 now goes nowhere (like one to a thread that just died):
      // what it asks there is never answered.
      const [deadEnd] = inMemoryTransportPair();
      two.connectPeer(procs[1].id, deadEnd);
      const b = ctx.spawn(on(procs[0]), (xs: Float64Array) => xs[0] + xs.length, a);
      await new Promise((resolve) => setTimeout(resolve, 20)); // b's fetch is on the dead link
      // The link to the replacement arrives; the dead one closes after it, or never.
      const [x, y] = inMemoryTransportPair();
      two.connectPeer(procs[1].id, x);
      three.connectPeer(procs[0].id, y);
      if (closes) deadEnd.close();
      const hang = new Promise((_, reject) =>
        setTimeout(() => reject(new Error('b hung on the dead link')), 5000),
      );
      expect(await Promise.race([b, hang])).toBe(503);
    });
  }

  it('a runtime runs a task sent ahead once its local input exists', async () => {
    const { ctx, procs, runtimes } = (current = rig(1));
    const a = ctx.spawn(on(procs[0]), () => new Float64Array(300).fill(5));
    await a.wait();
    // Send a dependent straight to the worker twice through the scheduler: both find it there.
    const b = ctx.spawn(on(procs[0]), (xs: Float64Array) => xs[0] + 1, a);
    const c = ctx.spawn(on(procs[0]), (xs: Float64Array) => xs[1] + 2, a);
    expect(await Promise.all([b, c])).toEqual([6, 7]);
    expect(runtimes[0].store.has(a.id)).toBe(true);
  });

  it('a chain that arrives in one batch after its turn ran out starts each task in a later turn as it comes, its input made (none waits for it)', async () => {
    const { ctx, procs, runtimes } = (current = rig(1));
    // Counts the tasks that had to wait on the worker for an input made there.
    const waiting = (runtimes[0] as unknown as { inputs: { waitingFor: Map<number, unknown> } })
      .inputs.waitingFor;
    let waited = 0;
    const set = waiting.set.bind(waiting);
    waiting.set = (key, list) => {
      waited++;
      return set(key, list);
    };
    const spin = (ms: number) => {
      const end = performance.now() + ms;
      while (performance.now() < end);
      return 0;
    };
    // The first task uses up the turn (4 ms): the second is deferred to the next, and so is
    // the rest of the batch, so that each later task finds its input made when it arrives.
    let t = ctx.spawn(on(procs[0]), spin, 10);
    for (let i = 0; i < 50; i++) t = ctx.spawn(on(procs[0]), (x: number) => x + 1, t);
    expect(await t).toBe(50);
    expect(waited).toBe(0);
  });

  it('a store with a backlog holds back task starts and input reads until it clears', async () => {
    const { ctx, procs, runtimes } = (current = rig(1, () => new GatedStore()));
    const store = runtimes[0].store as GatedStore;
    const a = ctx.spawn(on(procs[0]), () => new Float64Array(300).fill(5));
    await a.wait();
    store.blocked = true;
    const reads = store.reads;
    const b = ctx.spawn(on(procs[0]), (xs: Float64Array) => xs[0] + 1, a);
    await new Promise((r) => setTimeout(r, 30));
    expect(b.isReady()).toBe(false);
    expect(store.reads, 'its input is not read before it may start').toBe(reads);
    store.unblock();
    expect(await b).toBe(6);
    expect(store.reads).toBe(reads + 1);
  });

  it('a task woken by a local result while the store is backed up reads that result as it starts', async () => {
    // Regression: a sent-ahead task took the producer's object directly; while it waited for the
    // disk, the spilling store wrote that object out and dropped it, so what the task wrote into
    // it (a shard's counter piece) was lost. It must take the store's live copy when it starts.
    const { ctx, procs, runtimes } = (current = rig(1, () => new GatedStore()));
    const store = runtimes[0].store as GatedStore;
    const a = ctx.spawn({ ...on(procs[0]), resultScope: new ExactScope(procs[0]) }, () => {
      (globalThis as { gatedStarted?: boolean }).gatedStarted = true;
      return new Promise((r) => setTimeout(() => r({ n: 1 }), 30));
    });
    const b = ctx.spawn(
      on(procs[0]),
      (piece: { n: number }) => piece.n + 100,
      a as DTask<{ n: number }>,
    );
    // b is sent ahead and waits for a there. The store backs up only once a has started: a task
    // not yet started when it does would wait for it too (a loaded machine may take a while).
    const started = globalThis as { gatedStarted?: boolean };
    for (let i = 0; i < 1000 && started.gatedStarted !== true; i++) {
      await new Promise((r) => setTimeout(r, 5));
    }
    expect(started.gatedStarted).toBe(true);
    delete started.gatedStarted;
    store.blocked = true;
    await a.wait();
    await new Promise((r) => setTimeout(r, 10));
    expect(b.isReady()).toBe(false); // woken, but held back by the store
    store.set(a.id, { n: 2 }); // the store wrote the object out and read it back: a new copy
    store.unblock();
    expect(await b).toBe(102);
  });

  it('a store that keeps values in use is told which inputs a task holds, from its start to its end', async () => {
    const { ctx, procs, runtimes } = (current = rig(1, () => new HoldingStore()));
    const store = runtimes[0].store as HoldingStore;
    const a = ctx.spawn(on(procs[0]), () => new Float64Array(300).fill(5));
    const b = ctx.spawn(on(procs[0]), () => new Float64Array(300).fill(6));
    await Promise.all([a.wait(), b.wait()]);
    // While the task runs (across an await), both inputs are held; after it ends, neither.
    // The task says it started and waits for the test's gate (the rig runs in this thread).
    const gate = globalThis as { heldTaskStarted?: boolean; heldTaskGate?: Promise<void> };
    let open = () => {};
    gate.heldTaskStarted = false;
    gate.heldTaskGate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const both = ctx.spawn(
      on(procs[0]),
      async (x: Float64Array, y: Float64Array) => {
        const g = globalThis as { heldTaskStarted?: boolean; heldTaskGate?: Promise<void> };
        g.heldTaskStarted = true;
        await g.heldTaskGate;
        return x[0] + y[0];
      },
      a,
      b,
    );
    await vi.waitFor(() => expect(gate.heldTaskStarted).toBe(true), { timeout: 10_000 });
    expect(store.heldNow()).toEqual([a.id, b.id].sort());
    open();
    expect(await both).toBe(11);
    delete gate.heldTaskStarted;
    delete gate.heldTaskGate;
    expect(store.heldNow()).toEqual([]);
    // A task that fails lets go too, and holds nest per task.
    const fails = ctx.spawn(
      on(procs[0]),
      (x: Float64Array) => {
        throw new Error(`no ${x.length}`);
      },
      a,
    );
    await expect(fails).rejects.toThrow(DTaskFailedError);
    expect(store.heldNow()).toEqual([]);
    expect(store.log.filter(([op]) => op === 'hold').length).toBe(3);
    expect(store.log.filter(([op]) => op === 'unhold').length).toBe(3);
  });

  it('a result that cannot be cloned fails its task or its fetch, and the batch still arrives', async () => {
    const { ctx, procs } = (current = rig(2));
    const small = ctx.spawn(on(procs[0]), () => ({ f: () => 1 }));
    const fine = ctx.spawn(on(procs[0]), () => 7);
    // A typed error that names the result and says what to return instead.
    const typed = {
      code: 'DTASK_UNSUPPORTED',
      message: expect.stringMatching(
        /task #\d+ \(.*\(an object\)\) cannot be copied.*Return data instead/s,
      ),
      cause: { name: 'DataCloneError' },
    };
    await expect(small.fetch()).rejects.toMatchObject({ code: 'DTASK_FAILED', cause: typed });
    expect(await fine).toBe(7);
    // Big enough to stay on the worker: the move to the other worker (peer) fails instead.
    const big = ctx.spawn(on(procs[0]), () => ({ f: () => 1, pad: 'x'.repeat(4096) }));
    const user = ctx.spawn(on(procs[1]), (x: { pad: string }) => x.pad.length, big);
    const e: any = await user.fetch().catch((x) => x);
    expect(e.code).toBe('DTASK_FAILED');
    expect(e.cause).toMatchObject(typed);
    // Fetching it here fails as a failed task does: DTaskFailedError with the coded cause.
    await expect(big.fetch()).rejects.toMatchObject({ code: 'DTASK_FAILED', cause: typed });
    // A function result stays on its worker too: its fetch fails the same way as a symbol's.
    const fn = ctx.spawn(on(procs[0]), () => () => 1);
    const symbol = ctx.spawn(on(procs[0]), () => Symbol('s'));
    for (const t of [fn, symbol]) {
      await expect(t.fetch()).rejects.toMatchObject({
        code: 'DTASK_FAILED',
        cause: { code: 'DTASK_UNSUPPORTED', message: expect.stringContaining('cannot be copied') },
      });
    }
  });

  it('errors keep their class and message, and dependents fail with DTaskFailedError', async () => {
    const { ctx, procs } = (current = rig(1));
    const bad = ctx.spawn(on(procs[0]), () => {
      throw new RangeError('out of range in worker');
    });
    const dep = ctx.spawn((x: unknown) => x, bad);
    const e: any = await dep.fetch().catch((x) => x);
    expect(DTaskFailedError.isInstance(e)).toBe(true);
    expect(e.cause).toBeInstanceOf(RangeError);
    expect(e.cause.message).toBe('out of range in worker');
    expect(e.rootTask.id).toBe(bad.id);
  });

  it('a function that closes over a local runs on the main thread, or fails at spawn if its scope excludes it', async () => {
    const { ctx, procs } = (current = rig(1));
    const secret = 7;
    const here = ctx.spawn(() => [secret + 1, dtask.taskProcessor().id]);
    expect(await here).toEqual([8, 'thread:1:1']);
    const e = (() => {
      try {
        ctx.spawn(on(procs[0]), () => secret + 1);
      } catch (x) {
        return x as Error & { code: string };
      }
    })();
    expect(e?.code).toBe('DTASK_TASK_FUNCTION');
    expect(e?.message).toContain('secret');
    expect(e?.message).toContain('everywhere');
    // The scheduler keeps serving.
    expect(await ctx.spawn(on(procs[0]), (x: number) => x * 2, 21)).toBe(42);
  });

  it('nested spawn and await inside a worker task go through the scheduler', async () => {
    const { ctx, procs } = (current = rig(2));
    const t = ctx.spawn(
      on(procs[0]),
      async (n: number) => {
        const child = dtask.spawn(
          { scope: new dtask.ExactScope(new dtask.ThreadProc(1, 3)) },
          (x: number) => x * 10,
          n,
        );
        const grandchild = dtask.spawn((x: number) => x + 1, child);
        return (await grandchild) + 1;
      },
      4,
    );
    expect(await t).toBe(42);
  });

  it('withOptions propagates into tasks running on a worker', async () => {
    const { ctx, procs } = (current = rig(1));
    const t = withOptions({ name: 'from-main' }, () =>
      ctx.spawn(on(procs[0]), () => dtask.getOptions('name', 'unset')),
    );
    expect(await t).toBe('from-main');
    expect(getOptions('name', 'none')).toBe('none');
  });

  it('nested tasks inherit the withOptions scope, on whichever processor they are spawned', async () => {
    const { ctx, procs } = (current = rig(2));
    const scoped = withOptions({ scope: new ExactScope(procs[1]) }, () =>
      ctx.spawn(async () => {
        const inner = dtask.spawn(async () => {
          const innermost = dtask.spawn(() => dtask.taskProcessor().id);
          return [dtask.taskProcessor().id, await innermost];
        });
        return [dtask.taskProcessor().id, ...(await inner)];
      }),
    );
    expect(await scoped).toEqual([procs[1].id, procs[1].id, procs[1].id]);
  });

  it('cancelling a running remote task aborts its signal there and fails it', async () => {
    const { ctx, procs } = (current = rig(1));
    let sawAbort = false;
    const t = ctx.spawn(on(procs[0]), async () => {
      const s = dtask.taskSignal();
      await new Promise<void>((resolve) => s.addEventListener('abort', () => resolve()));
      (globalThis as { __sawAbort?: boolean }).__sawAbort = true;
    });
    await new Promise((r) => setTimeout(r, 20));
    t.cancel();
    await expect(t.fetch()).rejects.toMatchObject({ code: 'DTASK_FAILED' });
    await new Promise((r) => setTimeout(r, 20));
    sawAbort = (globalThis as { __sawAbort?: boolean }).__sawAbort === true;
    expect(sawAbort).toBe(true);
  });

  it('tasks in flight on a worker whose channel breaks re-run elsewhere', async () => {
    const { ctx, procs, links } = (current = rig(2));
    const slow = Array.from({ length: 6 }, (_, i) =>
      ctx.spawn(
        on(procs[0]),
        async (x: number) => {
          await new Promise((r) => setTimeout(r, 30));
          return x;
        },
        i,
      ),
    );
    // Unscoped tasks survive: scoped ones to the dead worker cannot run anywhere else.
    const free = Array.from({ length: 6 }, (_, i) =>
      ctx.spawn(async (x: number) => {
        await new Promise((r) => setTimeout(r, 30));
        return x * 2;
      }, i),
    );
    await new Promise((r) => setTimeout(r, 5));
    links[0].close();
    expect(await Promise.all(free)).toEqual([0, 2, 4, 6, 8, 10]);
    const outcomes = await Promise.all(
      slow.map((t) =>
        t.fetch().then(
          () => 'ok',
          (e) => e.cause?.code,
        ),
      ),
    );
    // Scoped to the dead worker only, they cannot run anywhere else: a clear SchedulingError.
    expect(outcomes).toEqual(Array(6).fill('DTASK_SCHEDULING'));
  });
});

// Real worker threads: where tasks run, which functions travel,
// everywhere() modules, data placement, nested tasks. Worker threads load the built dist of
// @dtask/threads and @dtask/core (build first).
import * as core from '@dtask/core';
import {
  ArgumentError,
  Context,
  everywhere,
  getOptions,
  scope,
  TaskFunctionError,
  taskProcessor,
  withOptions,
} from '@dtask/core';
import { RemoteResult } from '@dtask/core/worker';
import { describe, expect, it } from 'vitest';
import { CJS_URL, rig, sharedInts, sharedRig, until } from './__fixtures__/harness.js';
import { threads } from './index.js';

// Functions shipped as source text may use only their parameters and globals (vitest rewrites
// a test file's imports): they reach the API through the `dtask` global, which the worker
// threads define; the main thread gets it here.
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

/** A task's internal state (tests look at where its result lives). */
const internal = (t: unknown) => t as { value: unknown; id: number };

describe('threads: where tasks run', () => {
  // Tests that look only at their own tasks' results share one rig.
  const shared = sharedRig();
  it('runs tasks on threads 2 and 3 and gets their results', async () => {
    const { ctx, tasks } = shared();
    expect(await ctx.spawn(onThread(2), tasks.whereAmI)).toBe('thread:1:2');
    expect(await ctx.spawn(onThread(3), tasks.whereAmI)).toBe('thread:1:3');
    expect(await ctx.spawn(onThread(2), tasks.add, 40, 2)).toBe(42);
    // A self-contained function travels as source text.
    const t = ctx.spawn(onThread(3), (x: number) => [x * 2, dtask.taskProcessor().id], 21);
    expect(await t).toEqual([42, 'thread:1:3']);
  });

  it('default-scoped tasks never run on the main thread once threads exist', async () => {
    const { ctx, tasks } = shared();
    const where = await Promise.all([
      ...Array.from({ length: 100 }, () => ctx.spawn(tasks.whereAmI)),
      ...Array.from({ length: 100 }, () => ctx.spawn(() => dtask.taskProcessor().id)),
    ]);
    expect(where).not.toContain('thread:1:1');
    for (const id of where) expect(['thread:1:2', 'thread:1:3']).toContain(id);
  });

  it('a function that closes over a local runs on the main thread; scoped to a thread, spawn throws TaskFunctionError naming it', async () => {
    const { ctx } = shared();
    const secretOffset = 7;
    const here = ctx.spawn((x: number) => [x + secretOffset, taskProcessor().id], 1);
    expect(await here).toEqual([8, 'thread:1:1']);
    let error: any;
    try {
      ctx.spawn(onThread(2), (x: number) => x + secretOffset, 1);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(TaskFunctionError);
    expect(error.code).toBe('DTASK_TASK_FUNCTION');
    expect(error.message).toContain('secretOffset');
    expect(error.message).toContain('everywhere');
    // The context keeps working.
    expect(await ctx.spawn(onThread(2), (x: number) => x + 1, 1)).toBe(2);
  });

  it('a native function runs on the main thread; scoped to a thread, spawn throws TaskFunctionError', async () => {
    const { ctx } = shared();
    expect(await ctx.spawn(Math.max, 3, 9, 4)).toBe(9);
    let error: any;
    try {
      ctx.spawn(onThread(2), Math.max, 3, 9);
    } catch (e) {
      error = e;
    }
    expect(TaskFunctionError.isInstance(error)).toBe(true);
    expect(error.code).toBe('DTASK_TASK_FUNCTION');
    expect(error.message).toMatch(/native/);
  });
});

describe('threads: everywhere', () => {
  it('an ESM module’s functions travel by reference and use its state and imports', async () => {
    const { ctx, tasks } = await rig();
    const counts = [];
    for (let i = 0; i < 3; i++) counts.push(await ctx.spawn(onThread(2), tasks.countCall));
    expect(counts).toEqual([
      ['thread:1:2', 1],
      ['thread:1:2', 2],
      ['thread:1:2', 3],
    ]);
    // Each thread has its own copy of the module's state.
    expect(await ctx.spawn(onThread(3), tasks.countCall)).toEqual(['thread:1:3', 1]);
    expect(await ctx.spawn(onThread(3), tasks.useHelper, 21)).toBe(42);
  });

  it('a CommonJS module works the same way', async () => {
    const { ctx } = await rig();
    await everywhere(CJS_URL, ctx);
    const cjs = (await import('./__fixtures__/tasks.cjs')) as any;
    const fns = cjs.cjsCount ? cjs : cjs.default;
    expect(await ctx.spawn(onThread(2), fns.cjsCount)).toBe(1);
    expect(await ctx.spawn(onThread(2), fns.cjsCount)).toBe(2);
    expect(await ctx.spawn(onThread(3), fns.cjsBasename, '/a/b/c.txt')).toBe('c.txt');
    expect(await ctx.spawn(onThread(3), fns.cjsWhere)).toBe('thread:1:3');
  });

  it('the threads of a Context made after everywhere() load the module', async () => {
    const { ctx } = await rig();
    await everywhere(CJS_URL, ctx);
    const cjs = (await import('./__fixtures__/tasks.cjs')) as any;
    const fns = cjs.cjsCount ? cjs : cjs.default;
    await using later = new Context({ plugins: [threads({ count: 1 })] });
    await later.ready();
    expect(await later.spawn(onThread(2), fns.cjsCount)).toBe(1);
    expect(await later.spawn(onThread(2), fns.cjsCount)).toBe(2);
  });

  it('a thread started after everywhere() (a replacement after a crash) has the module too', async () => {
    const { ctx, plugin, tasks } = await rig();
    expect(await ctx.spawn(onThread(2), tasks.countCall)).toEqual(['thread:1:2', 1]);
    const old = plugin.threadWorkers().find((w) => w.proc.id === 'thread:1:2')!;
    await old.worker.terminate();
    await until(
      () => plugin.threadWorkers().some((w) => w.proc.id === 'thread:1:2' && w !== old),
      5000,
      'the replacement of thread 2',
    );
    // A fresh copy of the module: its counter starts again.
    expect(await ctx.spawn(onThread(2), tasks.countCall)).toEqual(['thread:1:2', 1]);
    expect(await ctx.spawn(onThread(2), tasks.useHelper, 5)).toBe(10);
  });

  it('a module that cannot be loaded is an ArgumentError', async () => {
    const { ctx } = await rig();
    const missing = new URL('./__fixtures__/no-such-module.mjs', import.meta.url);
    await expect(everywhere(missing, ctx)).rejects.toBeInstanceOf(ArgumentError);
  });
});

describe('threads: data', () => {
  // Tests that look only at their own tasks' results share one rig.
  const shared = sharedRig();
  it('a big result stays on its worker; a dependent on the other thread gets it peer to peer', async () => {
    const { ctx, plugin, tasks } = await rig();
    const n = 100_000;
    const big = ctx.spawn(onThread(2), tasks.makeBig, n, 1.5);
    await big.wait();
    const handle = internal(big).value;
    expect(handle).toBeInstanceOf(RemoteResult);
    expect((handle as RemoteResult).processor.id).toBe('thread:1:2');
    // The main thread does not pull the data to pass it on.
    const conn2 = plugin.threadWorkers().find((w) => w.proc.id === 'thread:1:2')!.connection;
    let mainFetches = 0;
    const fetch = conn2.fetch.bind(conn2);
    conn2.fetch = (key: number, take?: boolean) => {
      mainFetches++;
      return fetch(key, take);
    };
    const sum = ctx.spawn(onThread(3), tasks.sumArray, big);
    expect(await sum).toEqual([1.5 * n, n, 'thread:1:3']);
    expect(mainFetches).toBe(0);
    // The caller can still fetch it.
    const value = await big;
    expect(value).toBeInstanceOf(Float64Array);
    expect(value.length).toBe(n);
    expect(value[n - 1]).toBe(1.5);
    expect(mainFetches).toBe(1);
  });

  it('small results come back with the completion', async () => {
    const { ctx, tasks } = shared();
    const small = ctx.spawn(onThread(2), tasks.makeBig, 8, 2);
    await small.wait();
    expect(internal(small).value).toBeInstanceOf(Float64Array);
    expect([...(await small)]).toEqual(Array(8).fill(2));
  });

  it('a SharedArrayBuffer-backed Float64Array is the same memory on every thread', async () => {
    const { ctx, tasks } = shared();
    const xs = new Float64Array(new SharedArrayBuffer(8 * 1000));
    expect(await ctx.spawn(onThread(2), tasks.writeAt, xs, 10, 3.25)).toBe('thread:1:2');
    expect(xs[10]).toBe(3.25); // written in place: the main thread sees it
    expect(await ctx.spawn(onThread(3), tasks.readAt, xs, 10)).toBe(3.25);
    // Two tasks running at once on two threads: the writer waits for the reader to start, then
    // writes; the reader sees the write (made after it started, by the other thread).
    const flags = sharedInts(2);
    const reader = ctx.spawn(onThread(3), tasks.waitThenRead, flags, xs, 500);
    const writer = ctx.spawn(onThread(2), tasks.writeThenWake, flags, xs, 500, 99);
    const [[readerWait, seen, readerAt], [writerWait, writerAt]] = await Promise.all([
      reader,
      writer,
    ]);
    expect([readerAt, writerAt]).toEqual(['thread:1:3', 'thread:1:2']);
    expect(['ok', 'not-equal']).toContain(readerWait);
    expect(['ok', 'not-equal']).toContain(writerWait); // not 'timed-out'
    expect(seen).toBe(99);
    expect(xs[500]).toBe(99);
  });

  it('values keep their types across threads', async () => {
    const { ctx } = shared();
    const value = {
      map: new Map([[1, 'a']]),
      set: new Set([2]),
      date: new Date(0),
      big: 10n,
      bytes: new Uint8Array([1, 2, 3]),
      nested: [{ x: null, y: undefined }],
    };
    expect(await ctx.spawn(onThread(2), (v: unknown) => v, value)).toEqual(value);
  });
});

describe('threads: nested tasks', () => {
  // Tests that look only at their own tasks' results share one rig.
  const shared = sharedRig();
  it('spawn, await, taskProcessor and inTask work inside a task on a thread', async () => {
    const { ctx, tasks } = shared();
    const t = ctx.spawn(onThread(2), tasks.nestedSpawn, 20);
    expect(await t).toEqual({ here: 'thread:1:2', inTask: true, value: 41, pinned: 'thread:1:3' });
  });

  it('withOptions and getOptions work inside a task on a thread', async () => {
    const { ctx, tasks } = shared();
    expect(await ctx.spawn(onThread(2), tasks.nestedWithOptions, 3)).toEqual([
      'thread:1:2',
      ['thread:1:3', 'inner'],
    ]);
    const named = withOptions({ name: 'outer' }, () => ctx.spawn(onThread(3), tasks.reportOptions));
    expect(await named).toEqual(['thread:1:3', 'outer']);
    expect(getOptions('name', 'none')).toBe('none');
  });

  for (const thread of [2, 3]) {
    it(`nested tasks inherit a withOptions scope (thread ${thread})`, async () => {
      const { ctx, tasks } = shared();
      const t = withOptions(onThread(thread), () => ctx.spawn(tasks.nestedChain, 3));
      expect(await t).toEqual(Array(3).fill(`thread:1:${thread}`));
    });
  }

  // Regression: once the cost model had learned that a task takes longer than AHEAD_MS (a task
  // that awaits nested tasks is timed with its waits), a nested task scoped to its parent's
  // thread was parked behind the parent, which waits for it: deadlock (Scheduler.isFull).
  it('a task awaiting nested tasks on its own thread does not deadlock once known to be slow', async () => {
    const { ctx, tasks } = await rig();
    const scoped = onThread(2);
    // Teaches the cost model that nestedSlowChain takes ~30 ms.
    expect(await ctx.spawn(scoped, tasks.nestedSlowChain, 1, 30)).toEqual(['thread:1:2']);
    const t = withOptions(scoped, () => ctx.spawn(tasks.nestedSlowChain, 2, 1));
    const outcome = await Promise.race([
      t,
      new Promise((resolve) => setTimeout(() => resolve('deadlocked'), 3000)),
    ]);
    expect(outcome).toEqual(['thread:1:2', 'thread:1:2']);
  });
});

describe('threads: options', () => {
  it('bad options throw ArgumentError', async () => {
    const { threads } = await import('./index.js');
    for (const bad of [
      { count: 0 },
      { count: 1.5 },
      { cancelGraceMs: -1 },
      { bogus: 1 },
      { resourceLimits: 5 },
      { resourceLimits: { maxOldGenerationSize: 64 } },
      { resourceLimits: { stackSizeMb: -1 } },
      { execArgv: '--inspect' },
      { execArgv: [1] },
    ]) {
      let error: any;
      try {
        threads(bad as any);
      } catch (e) {
        error = e;
      }
      expect(error, JSON.stringify(bad)).toBeInstanceOf(ArgumentError);
      expect(error.code).toBe('DTASK_ARGUMENT');
    }
    expect(() => threads({ bogus: 1 } as any)).toThrow(/bogus/);
    expect(() => threads({ count: 'two' } as any)).toThrow("got 'two' (a string)");
    expect(() => threads({ resourceLimits: 5 } as any)).toThrow('got 5 (a number)');
    expect(() => threads({ resourceLimits: { maxOldGenerationSize: 64 } } as any)).toThrow(
      /unknown limit 'maxOldGenerationSize'; known: maxOldGenerationSizeMb/,
    );
    expect(() => new Context({ plugins: [threads({ count: -2 })] })).toThrow(ArgumentError);
  });
});

describe('threads: send-ahead', () => {
  // Regression: a task sent ahead with an input sent in an earlier batch waited forever for it
  // (the worker had dropped that small result before learning of its consumer).
  it('diamonds of dependent tasks all finish, on one thread and on two', async () => {
    for (const count of [1, 2]) {
      const { ctx } = await rig({ count });
      const roots = Array.from({ length: 500 }, () => {
        const x = ctx.spawn(
          (a: number) => a + 1,
          ctx.spawn(() => 1),
        );
        const y = ctx.spawn(
          (a: number) => a + 1,
          ctx.spawn(() => 1),
        );
        return ctx.spawn((a: number, b: number) => a + b, x, y);
      });
      expect(await Promise.all(roots)).toEqual(Array(500).fill(4));
      await ctx.close();
    }
  });

  it('a long chain runs on one worker without a round trip per task', async () => {
    const { ctx } = await rig();
    let t = ctx.spawn(() => 0);
    for (let i = 0; i < 2000; i++) t = ctx.spawn((x: number) => x + 1, t);
    expect(await t).toBe(2000);
  });
});

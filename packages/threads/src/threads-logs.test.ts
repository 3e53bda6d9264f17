// Logs of a run on worker threads: where each task ran, and the data that had to move
// between processors (`move` events: from the holder to the processor of the task taking it,
// with its size), which the viz report and the demo's summary count.
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { threads } from './index.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

declare const dtask: typeof import('@dtask/core');

let ctx: Context | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('logs on worker threads', () => {
  it('a result taken by a task on another thread is logged as a move with its size', async () => {
    ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    enableLogging();
    fetchLogs();
    const made = ctx.spawn(
      { name: 'make', scope: scope({ thread: 2 }) },
      (n: number) => new Float64Array(n).fill(1),
      1 << 16,
    );
    const used = ctx.spawn(
      { name: 'use', scope: scope({ thread: 3 }) },
      (x: Float64Array) => x.length,
      made,
    );
    expect(await used).toBe(1 << 16);
    const logs = fetchLogs();
    const moves = logs.filter((e) => e.kind === 'move');
    expect(moves).toEqual([
      expect.objectContaining({
        from: 'thread:1:2',
        to: 'thread:1:3',
        name: 'make',
        bytes: 8 * (1 << 16),
      }),
    ]);
    const ran = logs.filter((e) => e.kind === 'finish').map((e) => [e.name, e.processor]);
    expect(ran).toEqual(
      expect.arrayContaining([
        ['make', 'thread:1:2'],
        ['use', 'thread:1:3'],
      ]),
    );
  });

  it('each task has a run span from its thread: when it really ran, after it was sent there', async () => {
    ctx = new Context({ plugins: [threads({ count: 1 })] });
    await ctx.ready();
    enableLogging();
    fetchLogs();
    // Sent to the one thread together, they run there one after another.
    const sleep = (ms: number) => {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
      return ms;
    };
    const tasks = [0, 1, 2, 3].map(() =>
      ctx!.spawn({ name: 'sleep', scope: scope({ thread: 2 }) }, sleep, 20),
    );
    await Promise.all(tasks);
    const logs = fetchLogs();
    const runs = logs.filter((e) => e.kind === 'run').sort((a, b) => a.time - b.time);
    expect(runs.map((e) => e.task).sort()).toEqual(tasks.map((t) => t.id).sort());
    for (const [i, run] of runs.entries()) {
      expect(run).toMatchObject({ processor: 'thread:1:2', name: 'sleep' });
      expect(run.duration).toBeGreaterThanOrEqual(19);
      const start = logs.find((e) => e.kind === 'start' && e.task === run.task)!;
      const finish = logs.find((e) => e.kind === 'finish' && e.task === run.task)!;
      expect(run.time).toBeGreaterThanOrEqual(start.time);
      expect(run.time + run.duration!).toBeLessThanOrEqual(finish.time + 1);
      // One thread: the spans do not overlap.
      if (i > 0)
        expect(run.time).toBeGreaterThanOrEqual(runs[i - 1].time + runs[i - 1].duration! - 0.5);
    }
  });

  it('tasks without a name take their function’s, also one sent as source from a worker', async () => {
    ctx = new Context({ plugins: [threads({ count: 1 })] });
    await ctx.ready();
    enableLogging();
    fetchLogs();
    function square(x: number) {
      return x * x;
    }
    const inc = (x: number) => x + 1;
    const a = ctx.spawn(square, 3);
    const b = ctx.spawn(inc, a);
    const c = ctx.spawn((x: number) => x, b); // no name anywhere: `?` in the views
    // Spawned inside a task on the thread: `twice` travels to the scheduler as source text,
    // which lacks the name of the const it was assigned to.
    const nested = ctx.spawn(async () => {
      const twice = (x: number) => 2 * x;
      return await dtask.spawn(twice, 21);
    });
    expect([await c, await nested]).toEqual([10, 42]);
    const logs = fetchLogs();
    const named = (kind: string, task: number) =>
      logs.filter((e) => e.kind === kind && e.task === task).map((e) => e.name);
    for (const kind of ['spawn', 'start', 'run', 'finish']) {
      expect(named(kind, a.id), kind).toEqual(['square']);
      expect(named(kind, b.id), kind).toEqual(['inc']);
      expect(named(kind, c.id), kind).toEqual([undefined]);
    }
    const twice = logs.find((e) => e.kind === 'spawn' && e.name === 'twice');
    expect(twice).toBeDefined();
    expect(named('run', twice!.task!)).toEqual(['twice']);
    expect(named('finish', twice!.task!)).toEqual(['twice']);
  });

  it('finish events carry the size of the result', async () => {
    ctx = new Context({ plugins: [threads({ count: 1 })] });
    await ctx.ready();
    enableLogging();
    fetchLogs();
    const onThread = { scope: scope({ thread: 2 }) };
    const big = ctx.spawn(onThread, (n: number) => new Float64Array(n), 1 << 14);
    const small = ctx.spawn(onThread, (x: Float64Array) => x.length, big);
    const here = ctx.spawn({ scope: scope({ thread: 1 }) }, () => new Uint8Array(1000));
    await Promise.all([small, here]);
    const bytes = (t: { id: number }) =>
      fetchLogs({ clear: false }).find((e) => e.kind === 'finish' && e.task === t.id)?.bytes;
    expect(bytes(big)).toBe(8 << 14); // held on the thread, as it reported
    expect(bytes(small)).toBe(8); // a number, sent back inline
    expect(bytes(here)).toBe(1000); // on the calling thread
  });
});

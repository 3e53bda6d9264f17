// A pool that grows and shrinks (threads({ min, max, idleTimeoutMs })), on real worker
// threads: it grows under a burst, retires an idle thread, keeps every task's result through
// both, loads everywhere() modules on grown threads, and never keeps node alive. Needs the
// built dist.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import {
  ArgumentError,
  Context,
  disableLogging,
  enableLogging,
  everywhere,
  fetchLogs,
  type LogEvent,
  scope,
} from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { sharedInts, TASKS_URL, type Tasks, until } from './__fixtures__/harness.js';
import { threads } from './index.js';

/**
 * Holds its thread for `ms` (as a CPU-bound task would, without using the CPU), counting its
 * runs; gives `i * 2` and where it ran.
 */
function busy(counter: Int32Array, i: number, ms: number): [number, string] {
  Atomics.add(counter, 0, 1);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return [i * 2, (globalThis as any).dtask.taskProcessor().id];
}

/** As `busy`, giving 8 KB (`i` everywhere): too big to come back with the task's end, so the thread keeps it. */
function busyBig(counter: Int32Array, i: number, ms: number): Float64Array {
  Atomics.add(counter, 0, 1);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  return new Float64Array(1024).fill(i);
}

const threadIds = (ctx: Context) =>
  ctx
    .processors()
    .map((p) => p.id)
    .filter((id) => id !== 'thread:1:1')
    .sort();

const events = (logs: LogEvent[], kind: string) => logs.filter((e) => e.kind === kind);

const open: Context[] = [];
afterEach(async () => {
  disableLogging();
  await Promise.all(open.splice(0).map((c) => c.close()));
});

async function pool(idleTimeoutMs: number, execArgv?: string[]) {
  const plugin = threads({ min: 1, max: 2, idleTimeoutMs, execArgv });
  const ctx = new Context({ plugins: [plugin] });
  open.push(ctx);
  await ctx.ready();
  return { ctx, plugin };
}

describe('threads({ min, max, idleTimeoutMs }): a pool that grows and shrinks', () => {
  it('refuses count with min/max, and bad bounds, with messages that say what to write', () => {
    const message = (options: object) => {
      try {
        threads(options);
      } catch (error) {
        expect(error).toBeInstanceOf(ArgumentError);
        return (error as Error).message;
      }
      throw new Error('expected an ArgumentError');
    };
    expect(message({ count: 2, max: 4 })).toBe(
      'threads({ count, min, max }): give either count (a fixed number of threads) or min and max (a pool that grows and shrinks), not both; got count 2 (a number) with max 4 (a number)',
    );
    expect(message({ count: 2, min: 1 })).toMatch(
      /not both; got count 2 \(a number\) with min 1 \(a number\)$/,
    );
    expect(message({ min: 0, max: 2 })).toBe(
      'threads({ min }): must be a positive integer (the threads always running); got 0 (a number)',
    );
    expect(message({ min: 3, max: 2 })).toBe(
      'threads({ max }): must be an integer ≥ min (3); got 2 (a number)',
    );
    expect(message({ min: 1, max: 2, idleTimeoutMs: -1 })).toBe(
      'threads({ idleTimeoutMs }): must be a number of milliseconds from 0 to 2147483647; got -1 (a number)',
    );
    expect(message({ min: 1, max: 2, idleTimeoutMs: Number.POSITIVE_INFINITY })).toMatch(
      /^threads\(\{ idleTimeoutMs \}\): must be a number of milliseconds from 0 to 2147483647; got Infinity/,
    );
    expect(message({ count: 2, idleTimeoutMs: 100 })).toBe(
      'threads({ idleTimeoutMs }): only a pool that grows and shrinks retires idle threads; give min and max with it, such as { min: 1, max: 4, idleTimeoutMs: 100 }',
    );
    expect(message({ minThreads: 1 })).toMatch(
      /unknown option 'minThreads'; known: count, min, max, idleTimeoutMs/,
    );
  });

  it('min: 1, max: 2 grows to 2 threads under a burst and back to 1 when idle, twice, with every result right', async () => {
    enableLogging();
    fetchLogs();
    const { ctx } = await pool(300);
    expect(threadIds(ctx)).toEqual(['thread:1:2']);
    const counter = sharedInts(1);
    const figures: string[] = [];
    const logs: LogEvent[] = [];
    const retired = () => {
      logs.push(...fetchLogs());
      return events(logs, 'thread-retire').length;
    };
    let spawned = 0;
    for (const round of [1, 2]) {
      const t0 = performance.now();
      const tasks = Array.from({ length: 60 }, (_, i) => ctx.spawn(busy, counter, i, 20));
      spawned += tasks.length;
      await until(() => threadIds(ctx).length === 2, 10_000, 'a second thread');
      const grewMs = performance.now() - t0;
      const results = await Promise.all(tasks);
      const doneMs = performance.now() - t0;
      expect(results.map(([v]) => v)).toEqual(tasks.map((_, i) => i * 2));
      // Both threads (the grown one under the lowest free number) took part of the burst.
      const where = new Set(results.map(([, id]) => id));
      expect(where).toEqual(new Set(['thread:1:2', 'thread:1:3']));
      const t1 = performance.now();
      await until(() => threadIds(ctx).length === 1, 10_000, 'the idle thread to retire');
      const shrankMs = performance.now() - t1;
      // Out of placement at once; its `thread-retire` is logged once it has ended.
      await until(() => retired() === round, 10_000, 'the retired thread to end');
      figures.push(
        `round ${round}: 2 threads ${grewMs.toFixed(0)} ms after the burst began; burst done at ${doneMs.toFixed(0)} ms; back to 1 thread ${shrankMs.toFixed(0)} ms after it ended (idleTimeoutMs 300)`,
      );
    }
    // Whichever thread idled first was retired; numbers are reused lowest first.
    expect(threadIds(ctx)).toHaveLength(1);
    expect(['thread:1:2', 'thread:1:3']).toContain(threadIds(ctx)[0]);
    expect(Atomics.load(counter, 0)).toBe(spawned); // no task ran twice
    const starts = events(logs, 'thread-start');
    const retires = events(logs, 'thread-retire');
    expect(starts).toHaveLength(2);
    expect(retires).toHaveLength(2);
    for (const e of [...starts, ...retires])
      expect(['thread:1:2', 'thread:1:3']).toContain(e.processor);
    for (const e of [...starts, ...retires]) {
      figures.push(`${e.kind} ${e.processor}: took ${e.duration!.toFixed(1)} ms (${e.detail})`);
    }
    console.log(`elastic pool figures:\n  ${figures.join('\n  ')}`);
  }, 40_000);

  it('a thread slower to start than idleTimeoutMs is not retired as idle before it is ready: it starts once and takes part of the burst', async () => {
    enableLogging();
    fetchLogs();
    const slow = fileURLToPath(new URL('./__fixtures__/slow-start.mjs', import.meta.url));
    const { ctx } = await pool(100, ['--import', slow]);
    const counter = sharedInts(1);
    const tasks = Array.from({ length: 40 }, (_, i) => ctx.spawn(busy, counter, i, 30));
    const results = await Promise.all(tasks);
    expect(results.map(([v]) => v)).toEqual(tasks.map((_, i) => i * 2));
    // One thread started for the burst (700 ms to start): not retired before it was ready and
    // grown again, as when its idle time counted from the start.
    expect(events(fetchLogs(), 'thread-start')).toHaveLength(1);
    expect(new Set(results.map(([, id]) => id))).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    expect(Atomics.load(counter, 0)).toBe(40);
  }, 40_000);

  it('a retired thread hands its results to the main thread: dependents and fetches later get them without running a task again', async () => {
    enableLogging();
    fetchLogs();
    const { ctx } = await pool(200);
    const counter = sharedInts(1);
    const burst = Array.from({ length: 30 }, (_, i) => ctx.spawn(busyBig, counter, i, 20));
    await until(() => threadIds(ctx).length === 2, 10_000, 'a second thread');
    // Whichever thread retires holds some results: five are made on each.
    const on = (thread: number) => ({ scope: scope({ worker: 1, thread }) });
    const pinned = Array.from({ length: 10 }, (_, i) =>
      ctx.spawn(on(2 + (i % 2)), busyBig, counter, 30 + i, 1),
    );
    const tasks = [...burst, ...pinned];
    await Promise.all(tasks.map((t) => t.wait())); // finished, results left on the threads
    await until(() => threadIds(ctx).length === 1, 10_000, 'the idle thread to retire');
    const logs: LogEvent[] = [];
    const home = (e: LogEvent) =>
      Number(/; (\d+) result\(s\) brought home$/.exec(e.detail!)?.[1] ?? 0);
    // The retirement of the thread that held results. On a loaded machine a thread grown for
    // the burst may start after it has ended and retire first, holding nothing (correctly).
    const retired = () => {
      logs.push(...fetchLogs());
      return events(logs, 'thread-retire').some((e) => home(e) > 0);
    };
    await until(retired, 10_000, 'the retired thread to end');
    const retire = events(logs, 'thread-retire').find((e) => home(e) > 0)!;
    expect(home(retire)).toBeGreaterThanOrEqual(5);
    const sums = tasks.map((t) => ctx.spawn((xs: Float64Array) => xs[0] + xs[1023] + 1, t));
    expect(await Promise.all(sums)).toEqual(tasks.map((_, i) => i * 2 + 1));
    expect((await Promise.all(tasks)).map((xs) => xs[0])).toEqual(tasks.map((_, i) => i));
    expect(Atomics.load(counter, 0)).toBe(40);
  }, 30_000);

  it('everywhere() modules load on threads grown later', async () => {
    const { ctx } = await pool(5000);
    await everywhere(TASKS_URL, ctx);
    const tasks = (await import('./__fixtures__/tasks.mjs')) as Tasks;
    const counter = sharedInts(1);
    const burst = Array.from({ length: 30 }, (_, i) => ctx.spawn(busy, counter, i, 20));
    await until(() => threadIds(ctx).length === 2, 10_000, 'a second thread');
    // A module function, by reference, on the grown thread.
    const onNew = ctx.spawn({ scope: scope({ worker: 1, thread: 3 }) }, tasks.whereAmI);
    expect(await onNew).toBe('thread:1:3');
    expect(await ctx.spawn({ scope: scope({ worker: 1, thread: 3 }) }, tasks.add, 2, 3)).toBe(5);
    await Promise.all(burst);
  }, 30_000);

  it('a fixed count never grows nor retires', async () => {
    const plugin = threads({ count: 1 });
    const ctx = new Context({ plugins: [plugin] });
    open.push(ctx);
    await ctx.ready();
    const counter = sharedInts(1);
    await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.spawn(busy, counter, i, 10)));
    expect(threadIds(ctx)).toEqual(['thread:1:2']);
  });

  for (const [idleTimeoutMs, waitForRetire] of [
    [100, true],
    [60_000, false],
  ] as const) {
    it(`a program with min: 1, max: 2, idleTimeoutMs: ${idleTimeoutMs} that never calls shutdown() exits 0 on its own${waitForRetire ? ' after its extra thread retired' : ' while its extra thread is idle'}`, () => {
      const script = fileURLToPath(new URL('./__fixtures__/elastic-main.mjs', import.meta.url));
      // Not held until idleTimeoutMs: a program held by the 60 s one is killed at the timeout
      // (its signal is checked).
      const child = spawnSync(
        process.execPath,
        [script, String(idleTimeoutMs), String(waitForRetire)],
        { encoding: 'utf8', timeout: 45_000, stdio: ['ignore', 'pipe', 'pipe'] },
      );
      expect(child.error, child.stderr).toBeUndefined();
      expect(child.signal, 'killed by the timeout: something kept node alive').toBeNull();
      expect(child.status, child.stderr).toBe(0);
      const out = JSON.parse(child.stdout.trim());
      expect(out.sum).toBe(out.expected);
      expect(out.most).toBe(2);
      expect(out.atEnd).toBe(waitForRetire ? 1 : 2);
    }, 60_000);
  }
});

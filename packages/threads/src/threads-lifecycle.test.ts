// Real worker threads: idle threads do not keep node alive, close()
// ends them, and a context's threads come and go with it. Needs the built dist.
import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Context, everywhere, scope, WorkerLostError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { threads } from './index.js';

/** The core API, which worker threads define as a global (self-contained tasks use it). */
declare const dtask: { taskProcessor(): { id: string } };

describe('threads: lifecycle', () => {
  // Regression: in Node 20, a thread ended (terminate(), or process.exit() in a module it
  // imports) while its entry module is in a top-level await aborts the whole process (a V8
  // fatal error that took down about one test run in seven). The entry must not have one.
  it('the worker entry module has no top-level await', () => {
    const source = readFileSync(new URL('./worker-entry.ts', import.meta.url), 'utf8');
    // Top-level statements start at column 0; comments there do not count.
    const topLevelAwaits = source
      .split('\n')
      .filter((line) => !line.startsWith('//') && /^\S.*\bawait\b/.test(line));
    expect(topLevelAwaits).toEqual([]);
  });

  it('a program that does not call shutdown() exits by itself once its threads are idle', () => {
    const script = fileURLToPath(new URL('./__fixtures__/child-main.mjs', import.meta.url));
    // A program something keeps alive is killed at the timeout (its signal is checked).
    const child = spawnSync(process.execPath, [script], {
      encoding: 'utf8',
      timeout: 45_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(child.error, child.stderr).toBeUndefined();
    expect(child.signal, 'killed by the timeout: something kept node alive').toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const [value, where] = JSON.parse(child.stdout.trim());
    expect(value).toBe(42);
    expect(['thread:1:2', 'thread:1:3']).toContain(where);
  }, 60_000);

  it('.ts modules load with everywhere when the program runs under node --import tsx', () => {
    const script = fileURLToPath(new URL('./__fixtures__/ts-main.ts', import.meta.url));
    const root = fileURLToPath(new URL('../../../', import.meta.url));
    // A hang's bound, not a speed check: the program is about 1 s of CPU (tsx compiles the
    // sources as they load), which took over 20 s of wall at load 33.
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: root,
      encoding: 'utf8',
      timeout: 45_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(child.error, child.stderr).toBeUndefined();
    expect(child.status, child.stderr).toBe(0);
    expect(JSON.parse(child.stdout.trim())).toEqual([5, 'thread:1:2']);
  }, 60_000);

  it('ctx.close() ends the threads (their exit events fire)', async () => {
    const plugin = threads({ count: 2 });
    const ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    expect(await ctx.spawn((x: number) => x + 1, 1)).toBe(2);
    const workers = plugin.threadWorkers();
    expect(workers.map((w) => w.proc.id).sort()).toEqual(['thread:1:2', 'thread:1:3']);
    const exits = workers.map((w) => once(w.worker, 'exit'));
    await ctx.close();
    await Promise.all(exits);
    expect(workers.every((w) => w.exited)).toBe(true);
    // No replacements are started for threads ended by close().
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(plugin.threadWorkers().every((w) => w.exited)).toBe(true);
    expect(() => ctx.spawn((x: number) => x, 1)).toThrow(/closed/);
  });

  it('tasks still running when the context closes fail instead of hanging', async () => {
    const plugin = threads({ count: 2 });
    const ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    // It says when it has started (a task that never started is cancelled instead, below).
    const started = new Int32Array(new SharedArrayBuffer(4));
    const forever = ctx.spawn((flag: Int32Array) => {
      Atomics.store(flag, 0, 1);
      return new Promise(() => {});
    }, started);
    const until = Date.now() + 10_000;
    while (Atomics.load(started, 0) === 0 && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await ctx.close();
    const outcome = await Promise.race([
      forever.wait().then(() => 'settled'),
      new Promise((resolve) => setTimeout(() => resolve('still pending'), 2000)),
    ]);
    expect(outcome).toBe('settled');
    const error: any = await forever.fetch().catch((e) => e);
    expect(error.code).toBe('DTASK_FAILED');
    expect(error.cause.code).toBe('DTASK_WORKER_LOST');
  });

  it('close(): a task that never started is cancelled, one that started is lost, one that ends meanwhile keeps its value', async () => {
    const ctx = new Context({ plugins: [threads({ count: 1 })] });
    await ctx.ready();
    const on = { scope: scope({ worker: 1, thread: 2 }) };
    // Each task is spawned once the one before it has begun: the scheduler promises no order
    // between independent tasks (under load the busy one began first, and the one spawned before
    // it was still unstarted, so cancelled, when the context closed).
    const begun = new Int32Array(new SharedArrayBuffer(8));
    const hasBegun = async (i: number) => {
      while (Atomics.load(begun, i) === 0) await new Promise((r) => setTimeout(r, 5));
    };
    const started = ctx.spawn(
      on,
      (b: Int32Array) => {
        Atomics.store(b, 0, 1);
        return new Promise(() => {}); // runs until the thread ends
      },
      begun,
    );
    await hasBegun(0);
    const busy = ctx.spawn(
      on,
      (b: Int32Array) => {
        Atomics.store(b, 1, 1);
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 400); // holds the thread
        return 'finished';
      },
      begun,
    );
    await hasBegun(1);
    const queued = ctx.spawn(on, () => 'never ran'); // behind the busy one
    await ctx.close();
    const outcome = async (t: PromiseLike<unknown>) =>
      Promise.resolve(t).then(
        (v) => v,
        (e: any) => `${e.code} ${e.cause?.code}`,
      );
    expect(await outcome(started)).toBe('DTASK_FAILED DTASK_WORKER_LOST');
    expect(await outcome(busy)).toBe('finished');
    expect(await outcome(queued)).toBe('DTASK_FAILED DTASK_CANCELLED');
  });

  it('everywhere() of a module that ends worker threads on import rejects; the threads come back without it', async () => {
    const plugin = threads({ count: 2 });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const url = new URL('./__fixtures__/exit-on-import.mjs', import.meta.url);
    const error = await everywhere(url, ctx).then(
      () => expect.fail('everywhere should reject'),
      (e: unknown) => e,
    );
    expect(WorkerLostError.isInstance(error)).toBe(true);
    expect(String((error as Error).message)).toMatch(/while loading .*exit-on-import\.mjs/);
    // Replacement threads do not load it, so they stay up and serve tasks.
    const where = await Promise.all(
      Array.from({ length: 4 }, () => ctx.spawn(() => dtask.taskProcessor().id)),
    );
    for (const id of where) expect(['thread:1:2', 'thread:1:3']).toContain(id);
  }, 30_000);

  it('starts the number of threads asked for, numbered from 2', async () => {
    const plugin = threads({ count: 3 });
    const ctx = new Context({ plugins: [plugin] });
    try {
      await ctx.ready();
      expect(ctx.processors().map((p) => p.id)).toEqual(
        expect.arrayContaining(['thread:1:1', 'thread:1:2', 'thread:1:3', 'thread:1:4']),
      );
      expect(plugin.threadWorkers()).toHaveLength(3);
    } finally {
      await ctx.close();
    }
  });
});

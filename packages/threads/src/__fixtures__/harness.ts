// Shared set-up of the threads tests: a context with its own threads plugin per test, closed
// after it (or one for the tests of a `describe`), and the fixture modules loaded with
// everywhere(). The closing is registered by each call (`onTestFinished`, `beforeAll`), not by
// this module's top level: in a process shared by several test files (`isolate: false`) this
// module is evaluated once, and hooks it registered at its top level would close only the first
// file's contexts.
import { Context, everywhere } from '@dtask/core';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { type ThreadsOptions, threads } from '../index.js';

export const TASKS_URL = new URL('./tasks.mjs', import.meta.url);
export const CJS_URL = new URL('./tasks.cjs', import.meta.url);

/** The fixture module as the main thread loaded it (the same function objects everywhere() registered). */
export type Tasks = typeof import('./tasks.mjs');

export interface Rig {
  ctx: Context;
  plugin: ReturnType<typeof threads>;
  tasks: Tasks;
}

/**
 * A ready context with `threads(options)` (default 2 threads) and tasks.mjs loaded everywhere,
 * closed once the calling test has finished.
 */
export async function rig(options: ThreadsOptions = {}): Promise<Rig> {
  const plugin = threads({ count: 2, ...options });
  const ctx = new Context({ plugins: [plugin] });
  onTestFinished(() => ctx.close());
  return ready(ctx, plugin);
}

/**
 * `rig(options)` closed by its holder (`await using r = await ownRig()`) instead of a hook: for
 * tests that run side by side (`it.concurrent`), which vitest's global hooks cannot tell apart.
 */
export async function ownRig(options: ThreadsOptions = {}): Promise<Rig & AsyncDisposable> {
  const plugin = threads({ count: 2, ...options });
  const ctx = new Context({ plugins: [plugin] });
  try {
    return { ...(await ready(ctx, plugin)), [Symbol.asyncDispose]: () => ctx.close() };
  } catch (error) {
    await ctx.close();
    throw error;
  }
}

async function ready(ctx: Context, plugin: ReturnType<typeof threads>): Promise<Rig> {
  await ctx.ready();
  await everywhere(TASKS_URL, ctx);
  const tasks = (await import('./tasks.mjs')) as Tasks;
  return { ctx, plugin, tasks };
}

/**
 * One `rig()` (default options) for every test of the enclosing `describe`: started before the
 * first, closed after the last. For tests that look only at what their own tasks give (not at
 * the fixture modules' state, the threads' counters or a fresh cost model); starting the threads
 * and loading the module on them took about 0.2 s of CPU a test. Returns a getter for the rig.
 */
export function sharedRig(): () => Rig {
  let shared: Rig | undefined;
  beforeAll(async () => {
    const plugin = threads({ count: 2 });
    shared = await ready(new Context({ plugins: [plugin] }), plugin);
  });
  afterAll(() => shared?.ctx.close());
  return () => {
    if (shared === undefined) throw new Error('sharedRig: the rig has not started');
    return shared;
  };
}

/** An Int32Array over a SharedArrayBuffer: counters and flags that every thread sees. */
export function sharedInts(n = 4): Int32Array {
  return new Int32Array(new SharedArrayBuffer(4 * n));
}

/** Resolves when `check()` holds, polling; rejects after `ms`. */
export async function until(check: () => boolean, ms = 5000, what = 'condition'): Promise<void> {
  const end = Date.now() + ms;
  while (!check()) {
    if (Date.now() > end) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The error a task's fetch rejects with (fails the test if it resolves). */
export async function failureOf(task: PromiseLike<unknown> & { fetch(): Promise<unknown> }) {
  return task.fetch().then(
    (v) => {
      throw new Error(`expected the task to fail; it gave ${String(v)}`);
    },
    (e: any) => e,
  );
}

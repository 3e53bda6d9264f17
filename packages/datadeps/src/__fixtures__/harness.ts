// Shared set-up of the datadeps tests: a context with 2 worker threads per test (closed after
// it), or one for the tests of a `describe` (closed after its last), kernels.mjs loaded
// everywhere so its functions travel by reference. The closing is registered by each call
// (`onTestFinished`, `afterAll`), not by this module's top level: in a process shared by several
// test files (`isolate: false`) this module is evaluated once, and a hook registered at its top
// level would close only the first file's contexts.
import { Context, everywhere } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, onTestFinished } from 'vitest';

export const KERNELS_URL = new URL('./kernels.mjs', import.meta.url);

/** The fixture module as the main thread loaded it (the function objects everywhere() registered). */
export type Kernels = typeof import('./kernels.mjs');

/**
 * A ready context with `threads({ count })` and kernels.mjs loaded everywhere, closed once the
 * calling test has finished.
 */
export async function rig(count = 2): Promise<Rig> {
  const ctx = new Context({ plugins: [threads({ count })] });
  onTestFinished(() => ctx.close());
  return ready(ctx);
}

/** A context and the kernels it runs. */
export interface Rig {
  ctx: Context;
  k: Kernels;
}

async function ready(ctx: Context): Promise<Rig> {
  await ctx.ready();
  await everywhere(KERNELS_URL, ctx);
  const k = (await import('./kernels.mjs')) as Kernels;
  return { ctx, k };
}

/**
 * One `rig()` (2 threads) for every test of the enclosing `describe`: started before the first,
 * closed after the last. For tests that look only at what their own regions give (their data,
 * the order their tasks ran in), each region finished before the test ends; starting the
 * threads and loading the kernels on them took about 0.2 s of CPU a rig. Returns a getter.
 */
export function sharedRig(): () => Rig {
  let shared: Rig | undefined;
  beforeAll(async () => {
    shared = await ready(new Context({ plugins: [threads({ count: 2 })] }));
  });
  afterAll(() => shared?.ctx.close());
  return () => {
    if (shared === undefined) throw new Error('sharedRig: the rig has not started');
    return shared;
  };
}

/** A Float64Array of `n` over a SharedArrayBuffer, filled by `f(i)`. */
export function sharedF64(n: number, f: (i: number) => number = () => 0): Float64Array {
  const x = new Float64Array(new SharedArrayBuffer(8 * n));
  for (let i = 0; i < n; i++) x[i] = f(i);
  return x;
}

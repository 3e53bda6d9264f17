// Shared set-up of the datadeps tests: a context with 2 worker threads per test (closed after
// it), kernels.mjs loaded everywhere so its functions travel by reference. The closing is
// registered by each call (`onTestFinished`), not by this module's top level: in a process shared
// by several test files (`isolate: false`) this module is evaluated once, and a hook registered
// at its top level would close only the first file's contexts.
import { Context, everywhere } from '@dtask/core';
import { threads } from '@dtask/threads';
import { onTestFinished } from 'vitest';

export const KERNELS_URL = new URL('./kernels.mjs', import.meta.url);

/** The fixture module as the main thread loaded it (the function objects everywhere() registered). */
export type Kernels = typeof import('./kernels.mjs');

/**
 * A ready context with `threads({ count })` and kernels.mjs loaded everywhere, closed once the
 * calling test has finished.
 */
export async function rig(count = 2): Promise<{ ctx: Context; k: Kernels }> {
  const ctx = new Context({ plugins: [threads({ count })] });
  onTestFinished(() => ctx.close());
  await ctx.ready();
  await everywhere(KERNELS_URL, ctx);
  const k = (await import('./kernels.mjs')) as Kernels;
  return { ctx, k };
}

/** A Float64Array of `n` over a SharedArrayBuffer, filled by `f(i)`. */
export function sharedF64(n: number, f: (i: number) => number = () => 0): Float64Array {
  const x = new Float64Array(new SharedArrayBuffer(8 * n));
  for (let i = 0; i < n; i++) x[i] = f(i);
  return x;
}

import { cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';

/** A context with 2 real worker threads; close it with `await using`. */
export async function threadsRig(): Promise<Context> {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  await ctx.ready();
  return ctx;
}

/** A context with 2 real worker processes (@dtask/cluster); close it with `await using`. */
export async function processesRig(): Promise<Context> {
  const ctx = new Context({ plugins: [cluster({ workers: 2 })] });
  await ctx.ready();
  return ctx;
}

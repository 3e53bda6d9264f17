import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';

/** A context with 2 real worker threads; close it with `await using`. */
export async function threadsRig(): Promise<Context> {
  const ctx = new Context({ plugins: [threads({ count: 2 })] });
  await ctx.ready();
  return ctx;
}

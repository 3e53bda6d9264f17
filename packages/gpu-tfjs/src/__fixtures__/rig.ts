// Shared set-up of the gpu-tfjs tests: a context with two CPU threads and one TfjsProc on a
// backend that loads here (wasm or cpu), closed after each test.
import { Context, type Plugin } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach } from 'vitest';
import { type TfjsOptions, type TfjsPlugin, tfjs } from '../index.js';

const open = new Set<Context>();

afterEach(async () => {
  const contexts = [...open];
  open.clear();
  await Promise.all(contexts.map((c) => c.close()));
});

export interface GpuRig {
  ctx: Context;
  plugin: TfjsPlugin;
}

/**
 * A ready context with `threads({ count })` (default 2), `tfjs(options)` (default wasm) and the
 * `more` plugins after them.
 */
export async function gpuRig(
  options: TfjsOptions = {},
  count = 2,
  more: Plugin[] = [],
): Promise<GpuRig> {
  const plugin = tfjs({ backend: 'wasm', ...options });
  const ctx = new Context({ plugins: [threads({ count }), plugin, ...more] });
  open.add(ctx);
  await ctx.ready();
  return { ctx, plugin };
}

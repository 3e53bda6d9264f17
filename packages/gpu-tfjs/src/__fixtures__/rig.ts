// Shared set-up of the gpu-tfjs tests: a context with two CPU threads and one TfjsProc on a
// backend that loads here (wasm or cpu), closed after each test, or one shared by the tests of a
// `describe` (closed after its last). The closing is registered by each call (`onTestFinished`,
// `afterAll`), not by this module's top level: in a process shared by several test files
// (`isolate: false`) this module is evaluated once, and a hook registered at its top level
// would close only the first file's contexts.
import { Context } from '@dtask/core';
import type { Plugin } from '@dtask/core/plugin';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, onTestFinished } from 'vitest';
import { type TfjsOptions, type TfjsPlugin, tfjs } from '../index.js';

export interface GpuRig {
  ctx: Context;
  plugin: TfjsPlugin;
}

/**
 * A ready context with `threads({ count })` (default 2), `tfjs(options)` (default wasm) and the
 * `more` plugins after them, closed once the calling test has finished.
 */
export async function gpuRig(
  options: TfjsOptions = {},
  count = 2,
  more: Plugin[] = [],
): Promise<GpuRig> {
  const rig = await startRig(options, count, more);
  onTestFinished(() => rig.ctx.close());
  return rig;
}

/**
 * One rig (see `gpuRig`) for every test of the enclosing `describe`: started before the first,
 * closed after the last. For tests that compare only what their own tasks make (a TfjsProc and
 * its threads take a second or more to start). Returns a getter for the rig.
 */
export function sharedGpuRig(
  options: TfjsOptions = {},
  count = 2,
  more: Plugin[] = [],
): () => GpuRig {
  let rig: GpuRig | undefined;
  beforeAll(async () => {
    rig = await startRig(options, count, more);
  });
  afterAll(() => rig?.ctx.close());
  return () => {
    if (rig === undefined) throw new Error('sharedGpuRig: the rig has not started');
    return rig;
  };
}

async function startRig(options: TfjsOptions, count: number, more: Plugin[]): Promise<GpuRig> {
  const plugin = tfjs({ backend: 'wasm', ...options });
  const ctx = new Context({ plugins: [threads({ count }), plugin, ...more] });
  try {
    await ctx.ready();
  } catch (error) {
    await ctx.close();
    throw error;
  }
  return { ctx, plugin };
}

// Shared set-up of the gpujs tests: a context with two CPU threads and one GpujsProc. In cpu mode
// each test gets a fresh one, closed after it. headless-gl is not a context-aware addon: a process
// can load it in one thread only, once, so in headlessgl mode all tests of a file (one process
// under vitest's forks pool) share one context, closed after the file: such files keep a
// process of their own (vitest.config.ts), since a file sharing a process would meet the context
// an earlier file closed. `modesHere()` lists the
// modes to test: cpu always; headlessgl where an X server and a built headless-gl exist (else
// it prints why not).
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, afterEach } from 'vitest';
import { type GpujsOptions, type GpujsPlugin, gpujs } from '../index.js';
import { xDisplay } from './x-display.js';

const open = new Set<Context>();

afterEach(async () => {
  const contexts = [...open];
  open.clear();
  await Promise.all(contexts.map((c) => c.close()));
});

export interface GpujsRig {
  ctx: Context;
  plugin: GpujsPlugin;
}

/**
 * A ready context with `threads({ count })` (default 2) and `gpujs(options)` (default cpu);
 * in headlessgl mode, the file's shared one.
 */
export async function gpujsRig(options: GpujsOptions = {}, count = 2): Promise<GpujsRig> {
  if (options.mode === 'headlessgl' && count === 2) {
    const shared = await headlessRig();
    if (typeof shared === 'string') throw new Error(shared);
    return shared;
  }
  const plugin = gpujs({ mode: 'cpu', ...options });
  const ctx = new Context({ plugins: [threads({ count }), plugin] });
  open.add(ctx);
  await ctx.ready();
  return { ctx, plugin };
}

let headless: Promise<GpujsRig | string> | undefined;

afterAll(async () => {
  const shared = await headless;
  if (shared && typeof shared !== 'string') await shared.ctx.close();
});

/** The file's headlessgl context, or why there is none (no X server, headless-gl not built). */
function headlessRig(): Promise<GpujsRig | string> {
  headless ??= (async () => {
    const noX = await xDisplay();
    if (noX) return noX;
    const plugin = gpujs({ mode: 'headlessgl' });
    const ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
    try {
      await ctx.ready();
      return { ctx, plugin };
    } catch (error) {
      await ctx.close();
      return String((error as Error).message);
    }
  })();
  return headless;
}

/** Null when headlessgl starts here, else why not. */
export async function headlessGlMissing(): Promise<string | null> {
  const r = await headlessRig();
  return typeof r === 'string' ? r : null;
}

/** The modes tested here: cpu, and headlessgl when it starts (else prints why it is skipped). */
export async function modesHere(): Promise<('cpu' | 'headlessgl')[]> {
  const why = await headlessGlMissing();
  if (why) {
    console.warn(`@dtask/gpujs: headlessgl tests skipped: ${why}`);
    return ['cpu'];
  }
  return ['cpu', 'headlessgl'];
}

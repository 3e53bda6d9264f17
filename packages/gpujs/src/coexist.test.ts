// @dtask/gpujs beside @dtask/gpu-tfjs in one context: the `gpu`/`tfjs` scope keys name the
// TfjsProc, `gpujs` names the GpujsProc, and each plugin's markers send a task only to its own
// processor; plain tasks go to neither.
import { Context, scope } from '@dtask/core';
import { gpu, tfjs } from '@dtask/gpu-tfjs';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it } from 'vitest';
import { gpujs, gpujsTask } from './index.js';

declare const dtask: typeof import('@dtask/core');

let ctx: Context | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('gpujs and gpu-tfjs in one context', () => {
  it('each scope key and marker reaches its own processor', async () => {
    ctx = new Context({
      plugins: [threads({ count: 2 }), tfjs({ backend: 'cpu' }), gpujs({ mode: 'cpu' })],
    });
    await ctx.ready();
    // Markers mark the function itself: one function per marker.
    const where = () => dtask.taskProcessor().id;
    const onTfjsOnly = gpu(() => dtask.taskProcessor().id);
    const onGpujsOnly = gpujsTask(() => dtask.taskProcessor().id);
    expect(await ctx.spawn({ scope: scope({ gpu: 0 }) }, where)).toBe('tfjs:1:0');
    expect(await ctx.spawn({ scope: scope({ tfjs: 0 }) }, where)).toBe('tfjs:1:0');
    expect(await ctx.spawn({ scope: scope({ gpujs: 0 }) }, where)).toBe('gpujs:1:0');
    const onTfjs = await Promise.all(Array.from({ length: 10 }, () => ctx!.spawn(onTfjsOnly)));
    expect(new Set(onTfjs)).toEqual(new Set(['tfjs:1:0']));
    const onGpujs = await Promise.all(Array.from({ length: 10 }, () => ctx!.spawn(onGpujsOnly)));
    expect(new Set(onGpujs)).toEqual(new Set(['gpujs:1:0']));
    const plain = await Promise.all(Array.from({ length: 30 }, () => ctx!.spawn(where)));
    expect(plain.every((p) => p.startsWith('thread:'))).toBe(true);
    // Known gap (not tested here): a tensor held on the TfjsProc given straight to a gpu.js
    // task does not arrive (the two dedicated threads have no peer channel); through a CPU
    // thread it does.
  });
});

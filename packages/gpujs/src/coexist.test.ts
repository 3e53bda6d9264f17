// @dtask/gpujs beside @dtask/gpu-tfjs in one context: the `gpu`/`tfjs` scope keys name the
// TfjsProc, `gpujs` names the GpujsProc, and each plugin's markers send a task only to its own
// processor; plain tasks go to neither.
import { Context, scope } from '@dtask/core';
import { gpu, tfjs } from '@dtask/gpu-tfjs';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it } from 'vitest';
import { gpujs, gpujsTask, kernel } from './index.js';

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
  });

  it('a tensor made on the TfjsProc reaches a gpu.js kernel, and a kernel output a tf task', async () => {
    // The two dedicated threads have no peer link: the value comes through the main thread
    // (a regression: the scheduler took them for linked peers and the task waited forever).
    ctx = new Context({
      plugins: [threads({ count: 1 }), tfjs({ backend: 'cpu' }), gpujs({ mode: 'cpu' })],
    });
    await ctx.ready();
    const t = ctx.spawn({ scope: scope({ gpu: 0 }) }, () =>
      (globalThis as any).tf.tensor1d([1, 2, 3]),
    );
    const double = kernel(
      function (this: any, x: number[]) {
        return x[this.thread.x] * 2;
      },
      { output: [3] },
    );
    const doubled = ctx.spawn(double, t);
    expect([...((await doubled) as Float32Array)]).toEqual([2, 4, 6]);
    const summed = ctx.spawn(
      { scope: scope({ gpu: 0 }) },
      (x: any) => x.sum().dataSync()[0], // a tensor there: the move rule made it one
      doubled,
    );
    expect(await summed).toBe(12);
  });
});

// Placement (seed 003, Dagger's rule): plain CPU tasks never land on the GpujsProc unless scoped
// there; gpu.js tasks never on CPU threads, even while the GpujsProc is busy.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { gpujsRig, modesHere } from './__fixtures__/rig.js';
import { gpujsTask, kernel } from './index.js';

declare const dtask: typeof import('@dtask/core');

const MODES = await modesHere();
const where = () => dtask.taskProcessor().id;

describe.each(MODES)('placement beside CPU threads, GpujsProc in %s mode', (mode) => {
  it('CPU tasks never run on the GpujsProc, not even scoped "any", unless scoped to it', async () => {
    const { ctx } = await gpujsRig({ mode });
    const plain = await Promise.all(Array.from({ length: 60 }, () => ctx.spawn(where)));
    expect(plain.filter((p) => p.startsWith('gpujs'))).toEqual([]);
    expect(new Set(plain)).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    const any = await Promise.all(
      Array.from({ length: 30 }, () => ctx.spawn({ scope: scope('any') }, where)),
    );
    expect(any.filter((p) => p.startsWith('gpujs'))).toEqual([]);
    expect(await ctx.spawn({ scope: scope({ gpujs: 0 }) }, where)).toBe('gpujs:1:0');
    expect(await ctx.spawn({ scope: scope({ gpujs: 'any' }) }, where)).toBe('gpujs:1:0');
  });

  it('gpu.js tasks never run on CPU threads, even while the GpujsProc is busy', async () => {
    const { ctx } = await gpujsRig({ mode });
    const k = kernel(
      function (this: any, a: Float32Array) {
        return a[this.thread.x] * 2;
      },
      { output: [256] },
    );
    const probe = gpujsTask((x: number) => [
      dtask.taskProcessor().id,
      (globalThis as any).gpujs.mode,
      x,
    ]);
    const runs = Array.from({ length: 40 }, (_, i) => ctx.spawn(k, new Float32Array(256).fill(i)));
    const probes = await Promise.all(Array.from({ length: 20 }, (_, i) => ctx.spawn(probe, i)));
    expect(probes.map(([p]) => p)).toEqual(Array(20).fill('gpujs:1:0'));
    expect(probes.map(([, m]) => m)).toEqual(Array(20).fill(mode));
    const outs = await Promise.all(runs);
    expect(outs.map((o) => o[255])).toEqual(outs.map((_, i) => 2 * i));
  });
});

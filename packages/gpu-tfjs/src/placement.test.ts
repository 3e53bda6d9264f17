// Placement (seed 003, Dagger's rule): plain CPU tasks never land on the TfjsProc unless scoped
// there; GPU-only tasks never on CPU threads; either-way tasks run where their inputs are.
import { Context, DTaskFailedError, SchedulingError, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { sharedGpuRig } from './__fixtures__/rig.js';
import { gpu, gpuOrCpu } from './index.js';

declare const dtask: typeof import('@dtask/core');

const where = () => dtask.taskProcessor().id;

describe.each(['wasm', 'cpu'] as const)(
  'placement beside CPU threads, TfjsProc on %s',
  (backend) => {
    // One context for the four tests: each looks only at where its own tasks ran.
    const gpuRig = sharedGpuRig({ backend });

    it('CPU tasks never run on the TfjsProc, not even scoped "any", unless scoped to it', async () => {
      const { ctx } = gpuRig();
      const plain = await Promise.all(Array.from({ length: 60 }, () => ctx.spawn(where)));
      expect(plain.filter((p) => p.startsWith('tfjs'))).toEqual([]);
      expect(new Set(plain)).toEqual(new Set(['thread:1:2', 'thread:1:3']));
      const any = await Promise.all(
        Array.from({ length: 30 }, () => ctx.spawn({ scope: scope('any') }, where)),
      );
      expect(any.filter((p) => p.startsWith('tfjs'))).toEqual([]);
      expect(await ctx.spawn({ scope: scope({ gpu: 0 }) }, where)).toBe('tfjs:1:0');
      expect(await ctx.spawn({ scope: scope({ tfjs: 'any' }) }, where)).toBe('tfjs:1:0');
    });

    it('GPU-only tasks never run on CPU threads, even while the TfjsProc is busy', async () => {
      const { ctx } = gpuRig();
      const onGpu = gpu((x: number) => [dtask.taskProcessor().id, x]);
      const got = await Promise.all(Array.from({ length: 40 }, (_, i) => ctx.spawn(onGpu, i)));
      expect(got.map(([p]) => p)).toEqual(Array(40).fill('tfjs:1:0'));
      expect(got.map(([, x]) => x)).toEqual(Array.from({ length: 40 }, (_, i) => i));
    });

    it('either-way tasks follow their inputs: tensors on the GPU there, typed arrays on a thread', async () => {
      const { ctx } = gpuRig();
      const n = 1 << 18; // 1 MiB of float32: moving it costs more than running beside it
      const fillTensor = (k: number) => (globalThis as any).tf.fill([k], 1.5);
      const fillArray = (k: number) => new Float32Array(k).fill(2.5);
      const onGpu = ctx.spawn({ scope: scope({ gpu: 0 }) }, fillTensor, n);
      const onCpu = ctx.spawn({ scope: scope({ thread: 3 }) }, fillArray, n);
      await Promise.all([onGpu.wait(), onCpu.wait()]);
      const probe = gpuOrCpu((x: any) => [
        dtask.taskProcessor().id,
        typeof x.dataSync === 'function' ? 'tensor' : x.constructor.name,
      ]);
      const [a, b] = await Promise.all([ctx.spawn(probe, onGpu), ctx.spawn(probe, onCpu)]);
      expect(a).toEqual(['tfjs:1:0', 'tensor']);
      expect(b).toEqual(['thread:1:3', 'Float32Array']);
    });

    it('fetching a tensor result copies it to the caller; dependents still find it on the device', async () => {
      const { ctx, plugin } = gpuRig();
      const n = 1 << 18;
      const onGpu = ctx.spawn(
        { scope: scope({ gpu: 0 }) },
        (k: number) => (globalThis as any).tf.fill([k], 1.5),
        n,
      );
      const fetched = (await onGpu) as Float32Array;
      expect(fetched).toBeInstanceOf(Float32Array);
      expect(fetched.length).toBe(n);
      expect(fetched[n - 1]).toBe(1.5);
      const probe = gpuOrCpu((x: any) => [
        dtask.taskProcessor().id,
        typeof x.dataSync === 'function' ? 'tensor' : x.constructor.name,
      ]);
      const uploads = plugin.stats().toTensor;
      expect(await ctx.spawn(probe, onGpu)).toEqual(['tfjs:1:0', 'tensor']);
      expect(plugin.stats().toTensor).toBe(uploads); // used in place, not uploaded again
      // A second fetch is another copy of the same data; the caller's copy is its own.
      fetched[0] = 99;
      const again = (await onGpu.fetch()) as Float32Array;
      expect(again[0]).toBe(1.5);
      expect(await ctx.spawn(probe, onGpu)).toEqual(['tfjs:1:0', 'tensor']);
    });
  },
);

describe('without the tfjs plugin', () => {
  it('a GPU-only task fails with SchedulingError instead of running on a CPU thread', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    const t = ctx.spawn(gpu(() => 1));
    const error = await t.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(DTaskFailedError.isInstance(error)).toBe(true);
    const cause = (error as DTaskFailedError).cause;
    expect(SchedulingError.isInstance(cause)).toBe(true);
    expect(String(cause)).toMatch(/No processors available.*tfjs/s);
    expect(await ctx.spawn(gpuOrCpu(() => 2))).toBe(2); // either-way tasks still run on CPU
  });
});

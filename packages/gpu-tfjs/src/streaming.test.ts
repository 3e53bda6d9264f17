// A streaming stage on the TfjsProc (cpu backend, which loads everywhere): values stream from a
// worker thread through a step that runs on the device processor and back to the caller.
import { scope, spawnStreaming, streamValues } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { sharedGpuRig } from './__fixtures__/rig.js';

describe('streaming on a TfjsProc', () => {
  // One context for both tests: each reads only its own stream (the first runs first, so its
  // count of live tensors is its own).
  const gpuRig = sharedGpuRig({ backend: 'cpu' });

  it('a stage scoped to the device runs there once per value, in order, its tensors read back as typed arrays', async () => {
    const { ctx, plugin } = gpuRig();
    const n = 300;
    const [source, stage] = spawnStreaming(() => {
      const source = ctx.spawn(
        { scope: scope({ worker: 1, thread: 2 }) },
        async function* (count: number) {
          for (let i = 0; i < count; i++) yield new Float32Array([i, i + 0.5]);
        },
        n,
      );
      const stage = ctx.spawn(
        { scope: scope({ gpu: 0 }), streamBufferSize: 16 },
        (x: any) => [dtask.taskProcessor().id, typeof x.dataSync, x.mul(2)],
        source,
      );
      return [source, stage];
    });
    const got: unknown[] = [];
    for await (const v of streamValues(stage)) got.push(v);
    expect(await source).toBe(undefined);
    expect(await stage).toBe(undefined);
    expect(got.length).toBe(n);
    got.forEach((v, i) => {
      const [where, kind, data] = v as [string, string, Float32Array];
      expect(where).toBe('tfjs:1:0');
      expect(kind).toBe('function');
      expect(data).toBeInstanceOf(Float32Array);
      expect([...data]).toEqual([2 * i, 2 * i + 1]);
    });
    // Each step's input and output tensors were freed when it ended: none piles up per value.
    expect(plugin.stats().tensors).toBeLessThan(10);
  });

  it('an async step there ends its stream with finishStream(tensor), read back as a typed array', async () => {
    const { ctx } = gpuRig();
    const stage = spawnStreaming(() =>
      ctx.spawn(
        { scope: scope({ gpu: 0 }) },
        async (x: any, scale: any) => {
          const y = x.mul(scale);
          const first = (await y.data())[0];
          return first >= 30 ? dtask.finishStream(y, { result: first }) : y;
        },
        ctx.spawn({ scope: scope({ worker: 1, thread: 2 }) }, async function* () {
          for (let i = 0; ; i++) yield new Float32Array([i]);
        }),
        new Float32Array([3]),
      ),
    );
    const got: number[] = [];
    for await (const v of streamValues(stage)) got.push((v as Float32Array)[0] as number);
    expect(got).toEqual([0, 3, 6, 9, 12, 15, 18, 21, 24, 27, 30]);
    expect(await stage).toBe(30);
  });
});

declare const dtask: {
  taskProcessor(): { id: string };
  finishStream(value: unknown, options: { result: unknown }): unknown;
};

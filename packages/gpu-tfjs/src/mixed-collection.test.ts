// A collection whose chunks live partly on the TfjsProc (tensors) and partly on CPU threads
// (typed arrays): an either-way map runs each piece where it lives, then a reduction to one
// value gives the right total.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { gpuRig } from './__fixtures__/rig.js';
import { gpuOrCpu } from './index.js';

declare const dtask: typeof import('@dtask/core');

const N = 1 << 17; // 512 KiB of float32 per chunk

/** x ↦ 2x + 1, on a tensor (GPU) or a Float32Array (CPU). */
const affine = gpuOrCpu((x: any) =>
  typeof x.dataSync === 'function' ? x.mul(2).add(1) : x.map((v: number) => 2 * v + 1),
);
/** Sum of a chunk and where it was summed. */
const total = gpuOrCpu((x: any): [number, string] => [
  typeof x.dataSync === 'function'
    ? x.sum().dataSync()[0]
    : x.reduce((a: number, b: number) => a + b, 0),
  dtask.taskProcessor().id,
]);

describe('a mixed CPU/GPU collection', () => {
  it('is mapped and reduced correctly, each piece where it lives', async () => {
    const { ctx } = await gpuRig();
    const onGpu = { scope: scope({ gpu: 0 }) };
    const chunks = [0, 1, 2, 3].map((i) =>
      i % 2 === 0
        ? ctx.spawn(onGpu, (n: number, v: number) => (globalThis as any).tf.fill([n], v), N, i)
        : ctx.spawn(
            { scope: scope({ thread: 2 + (i >> 1) }) },
            (n: number, v: number) => new Float32Array(n).fill(v),
            N,
            i,
          ),
    );
    await Promise.all(chunks.map((c) => c.wait()));
    const mapped = chunks.map((c) => ctx.spawn(affine, c));
    const partial = mapped.map((m) => ctx.spawn(total, m));
    const sum = ctx.spawn(
      (...ps: [number, string][]) => ps.reduce((a, [s]) => a + s, 0),
      ...partial,
    );
    expect(await sum).toBe([0, 1, 2, 3].reduce((a, i) => a + N * (2 * i + 1), 0));
    const where = (await Promise.all(partial)).map(([, p]) => p);
    expect(where).toEqual(['tfjs:1:0', 'thread:1:2', 'tfjs:1:0', 'thread:1:3']);
  });
});

// A collection whose chunks live partly on the GpujsProc (pipeline textures) and partly on CPU
// threads (typed arrays): each chunk is mapped where it lives (a kernel there, plain JS here),
// then reduced to one value on a thread, the textures read back by the move rule on the way.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { gpujsRig, modesHere } from './__fixtures__/rig.js';
import { kernel } from './index.js';

declare const dtask: typeof import('@dtask/core');

const MODES = await modesHere();
const N = 1 << 14;

const fillK = kernel(
  function (this: any, v: number) {
    return v + this.thread.x * 0;
  },
  { output: [N], pipeline: true },
);
/** x ↦ 2x + 1 on the GpujsProc, result left there. */
const affineK = kernel(
  function (this: any, x: Float32Array) {
    return 2 * x[this.thread.x] + 1;
  },
  { output: [N], pipeline: true },
);
/** x ↦ 2x + 1 on a thread. */
const affineJs = (x: Float32Array) => x.map((v) => 2 * v + 1);

describe.each(MODES)('a mixed gpu.js/CPU collection (%s mode)', (mode) => {
  it('is mapped where each chunk lives and reduced correctly', async () => {
    const { ctx, plugin } = await gpujsRig({ mode });
    const before = plugin.stats().toTypedArray;
    const chunks = [0, 1, 2, 3].map((i) =>
      i % 2 === 0
        ? { onGpu: true, ref: ctx.spawn(fillK, i) }
        : {
            onGpu: false,
            ref: ctx.spawn(
              { scope: scope({ thread: 2 + (i >> 1) }) },
              (n: number, v: number) => new Float32Array(n).fill(v),
              N,
              i,
            ),
          },
    );
    const mapped = chunks.map((c) => ctx.spawn(c.onGpu ? affineK : affineJs, c.ref));
    const partial = mapped.map((m) =>
      ctx.spawn(
        (x: Float32Array): [number, string, string] => [
          x.reduce((a, b) => a + b, 0),
          x.constructor.name,
          dtask.taskProcessor().id,
        ],
        m,
      ),
    );
    const sum = ctx.spawn(
      (...ps: [number, string, string][]) => ps.reduce((a, [s]) => a + s, 0),
      ...partial,
    );
    expect(await sum).toBe([0, 1, 2, 3].reduce((a, i) => a + N * (2 * i + 1), 0));
    const parts = await Promise.all(partial);
    for (const [, type, proc] of parts) {
      expect(type).toBe('Float32Array');
      expect(proc.startsWith('thread:')).toBe(true);
    }
    if (mode === 'headlessgl') {
      // The two GPU chunks and their maps stayed textures; only the maps were read back.
      expect(plugin.stats().toTypedArray - before).toBe(2);
    }
  });
});

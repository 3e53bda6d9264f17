// A kernel per processor kind: a DArray whose float32 blocks all live on a @dtask/gpujs
// processor multiplies there with a gpu.js kernel, in whatever mode the processor started
// (headless-gl where it runs; on this project's machines gpu.js's CPU fallback, the same path);
// float64 blocks there, and blocks split between the processor and a thread, multiply on the
// CPU threads.
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { gpujs } from '@dtask/gpujs';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { expectClose, matmul, random } from './__fixtures__/reference.js';
import { Blocks, distribute } from './index.js';

describe('matmul on a gpu.js processor', () => {
  it('blocks on gpujs:1:0 multiply there with a gpu.js kernel; float64 and split blocks on the threads', async () => {
    const device = gpujs();
    await using ctx = new Context({ plugins: [threads({ count: 2 }), device] });
    await ctx.ready();
    console.log(`gpu.js processor: ${device.describe()}`);
    const [m, k, n] = [23, 19, 11];
    const x = random(m * k, 51);
    const y = random(k * n, 52);
    const want = matmul(x, y, m, k, n);
    const onDevice = () => scope({ gpujs: 0 });
    const made = (dtype: 'float32' | 'float64', assign: (i: readonly number[]) => any) => {
      const a = distribute(x, [m, k], new Blocks(6, 5), { context: ctx, assign, dtype });
      const b = distribute(y, [k, n], new Blocks(5, 4), { context: ctx, assign, dtype });
      return Promise.all([...a.chunks, ...b.chunks].map((c) => c.wait())).then(() => [a, b]);
    };
    enableLogging();
    fetchLogs();
    try {
      const [a32, b32] = await made('float32', onDevice);
      const p32 = a32.matmul(b32);
      const got32 = await p32.collect();
      expect(got32.data).toBeInstanceOf(Float32Array);
      expectClose(got32.data, want, 1e-5);
      // A view (a slice of the blocks) multiplies there too.
      const view = a32.slice([2, 21], [0, 19]).matmul(b32);
      const wantView = matmul(
        Float64Array.from({ length: 19 * 19 }, (_, t) => x[2 + (t % 19) + Math.floor(t / 19) * m]),
        y,
        19,
        k,
        n,
      );
      expectClose((await view.collect()).data, wantView, 1e-5);
      const [a64, b64] = await made('float64', onDevice);
      const p64 = a64.matmul(b64);
      expectClose((await p64.collect()).data, want, 1e-12);
      const places = [scope({ gpujs: 0 }), scope({ worker: 1, thread: 2 })];
      const [as, bs] = await made('float32', ([i, j]) => places[(i + j) % 2]);
      const split = as.matmul(bs);
      expectClose((await split.collect()).data, want, 1e-5);
      // Where each product's block tasks finished.
      const finished = fetchLogs().filter((e) => e.kind === 'finish');
      const where = (ids: number[]) =>
        new Set(finished.filter((e) => ids.includes(e.task as number)).map((e) => e.processor));
      expect(where(p32.chunks.map((c) => c.id))).toEqual(new Set(['gpujs:1:0']));
      expect(where(p64.chunks.map((c) => c.id)).has('gpujs:1:0')).toBe(false);
      expect(where(split.chunks.map((c) => c.id)).has('gpujs:1:0')).toBe(false);
    } finally {
      disableLogging();
    }
  }, 90_000);
});

// A kernel per processor kind: a DArray whose blocks all live on a @dtask/gpu-tfjs processor
// (the wasm backend, which loads here; a real GPU takes the same path) multiplies there with
// tf.matMul; float64 blocks there, and blocks split between the device and a thread, multiply
// on the CPU threads (tfjs has no float64).
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { tfjs } from '@dtask/gpu-tfjs';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { expectClose, matmul, random } from './__fixtures__/reference.js';
import { Blocks, distribute } from './index.js';
import { matmulBlocksTfjs } from './matmul-tfjs-kernel.js';

describe('matmul on a TensorFlow.js processor', () => {
  it('blocks on tfjs:1:0 multiply there with tf.matMul; float64 and split blocks on the threads', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 }), tfjs({ backend: 'wasm' })] });
    await ctx.ready();
    const [m, k, n] = [23, 19, 11];
    const x = random(m * k, 31);
    const y = random(k * n, 32);
    const want = matmul(x, y, m, k, n);
    const onGpu = () => scope({ gpu: 0 });
    const made = (dtype: 'float32' | 'float64', assign: (i: readonly number[]) => any) => {
      const a = distribute(x, [m, k], new Blocks(6, 5), { context: ctx, assign, dtype });
      const b = distribute(y, [k, n], new Blocks(5, 4), { context: ctx, assign, dtype });
      return Promise.all([...a.chunks, ...b.chunks].map((c) => c.wait())).then(() => [a, b]);
    };
    enableLogging();
    fetchLogs();
    try {
      const [a32, b32] = await made('float32', onGpu);
      const p32 = a32.matmul(b32);
      const got32 = await p32.collect();
      expect(got32.data).toBeInstanceOf(Float32Array);
      expectClose(got32.data, want, 1e-5);
      const [a64, b64] = await made('float64', onGpu);
      const p64 = a64.matmul(b64);
      expectClose((await p64.collect()).data, want, 1e-12);
      const places = [scope({ gpu: 0 }), scope({ worker: 1, thread: 2 })];
      const [as, bs] = await made('float32', ([i, j]) => places[(i + j) % 2]);
      const split = as.matmul(bs);
      expectClose((await split.collect()).data, want, 1e-5);
      // Where each product's block tasks finished.
      const finished = fetchLogs().filter((e) => e.kind === 'finish');
      const where = (ids: number[]) =>
        new Set(finished.filter((e) => ids.includes(e.task as number)).map((e) => e.processor));
      expect(where(p32.chunks.map((c) => c.id))).toEqual(new Set(['tfjs:1:0']));
      expect(where(p64.chunks.map((c) => c.id)).has('tfjs:1:0')).toBe(false);
      expect(where(split.chunks.map((c) => c.id)).has('tfjs:1:0')).toBe(false);
    } finally {
      disableLogging();
    }
  }, 90_000);

  it('matmulBlocksTfjs equals the plain product on views (strided blocks copied first)', async () => {
    const tf = await import('@tensorflow/tfjs');
    await import('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
    (globalThis as any).tf = tf;
    try {
      const [m, k, n] = [7, 5, 3];
      const x = random(m * k, 41);
      const y = random(k * n, 42);
      // A as a view with an offset and a padded column stride; B contiguous.
      const ld = m + 2;
      const ad = new Float32Array(3 + ld * k);
      for (let j = 0; j < k; j++) for (let i = 0; i < m; i++) ad[3 + i + j * ld] = x[i + j * m];
      const a = { data: ad, shape: [m, k], strides: [1, ld], offset: 3 };
      const b = { data: Float32Array.from(y), shape: [k, n], strides: [1, k], offset: 0 };
      const c = matmulBlocksTfjs(1, a, b);
      expect(c.shape).toEqual([m, n]);
      expectClose(c.data, matmul(x, y, m, k, n), 1e-5);
    } finally {
      delete (globalThis as any).tf;
    }
  });
});

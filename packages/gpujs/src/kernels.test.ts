// Kernel results against plain JavaScript on every mode here (cpu; headlessgl under an X
// server), the texture pipeline, and the compile cache.
import { disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { gpujsRig, modesHere } from './__fixtures__/rig.js';
import { kernel } from './index.js';

const MODES = await modesHere();
const N = 64;

function randomMatrix(n: number, seed: number): Float32Array {
  const m = new Float32Array(n * n);
  let x = seed;
  for (let i = 0; i < m.length; i++) {
    x = (x * 1103515245 + 12345) % 2 ** 31;
    m[i] = (x % 1000) / 1000 - 0.5;
  }
  return m;
}

function plainMatmul(a: Float32Array, b: Float32Array, n: number): Float32Array {
  const c = new Float32Array(n * n);
  for (let y = 0; y < n; y++)
    for (let x = 0; x < n; x++) {
      let s = 0;
      for (let k = 0; k < n; k++) s += a[y * n + k] * b[k * n + x];
      c[y * n + x] = s;
    }
  return c;
}

const matmul = kernel(
  function (this: any, a: Float32Array, b: Float32Array) {
    let s = 0;
    for (let k = 0; k < this.constants.n; k++) {
      s += a[this.thread.y * this.constants.n + k] * b[k * this.constants.n + this.thread.x];
    }
    return s;
  },
  { output: [N, N], constants: { n: N } },
);

const scaleP = kernel(
  function (this: any, a: Float32Array, f: number) {
    return a[this.thread.x] * f;
  },
  { output: [N * N], pipeline: true },
);
const addOneP = kernel(
  function (this: any, a: Float32Array) {
    return a[this.thread.x] + 1;
  },
  { output: [N * N], pipeline: true },
);

describe.each(MODES)('gpu.js kernels in %s mode', (mode) => {
  it('a 64² matmul matches plain JS (typed arrays in, one row-major Float32Array out)', async () => {
    const { ctx, plugin } = await gpujsRig({ mode });
    expect(plugin.mode).toBe(mode);
    const a = randomMatrix(N, 1);
    const b = randomMatrix(N, 2);
    const c = (await ctx.spawn(matmul, a, b)) as Float32Array;
    expect(c).toBeInstanceOf(Float32Array);
    expect(c.length).toBe(N * N);
    const want = plainMatmul(a, b, N);
    let worst = 0;
    for (let i = 0; i < c.length; i++) worst = Math.max(worst, Math.abs(c[i] - want[i]));
    expect(worst).toBeLessThan(1e-3);
  });

  it('pipeline outputs stay on the processor for the next kernel and become typed arrays when fetched', async () => {
    const { ctx, plugin } = await gpujsRig({ mode });
    const before = plugin.stats();
    const a = randomMatrix(N, 3);
    const scaled = ctx.spawn(scaleP, a, 3);
    const plusOne = ctx.spawn(addOneP, scaled);
    const got = (await plusOne) as Float32Array;
    expect(got).toBeInstanceOf(Float32Array);
    for (let i = 0; i < got.length; i += 97) expect(got[i]).toBeCloseTo(a[i] * 3 + 1, 4);
    const s = plugin.stats();
    if (mode === 'headlessgl') {
      // Both results were textures kept on the device; only the fetched one was read back.
      expect(s.textures).toBeGreaterThanOrEqual(1);
      expect(s.bytesOnDevice).toBeGreaterThanOrEqual(4 * N * N);
      expect(s.toTypedArray - before.toTypedArray).toBe(1);
    } else {
      expect(s.textures).toBe(0); // cpu mode has no textures: outputs are typed arrays
    }
    // A plain CPU task given the intermediate receives its data as a Float32Array.
    const onThread = await ctx.spawn((x: Float32Array) => [x.constructor.name, x[5]], scaled);
    expect(onThread[0]).toBe('Float32Array');
    expect(onThread[1]).toBeCloseTo(a[5] * 3, 4);
  });

  it('fetching a pipeline output copies it to the caller; the next kernel still uses it in place', async () => {
    const { ctx, plugin } = await gpujsRig({ mode });
    const a = randomMatrix(N, 5);
    const scaled = ctx.spawn(scaleP, a, 2);
    const fetched = (await scaled) as Float32Array;
    expect(fetched).toBeInstanceOf(Float32Array);
    expect(fetched[9]).toBeCloseTo(a[9] * 2, 4);
    const texturesAfterFetch = plugin.stats().textures;
    enableLogging();
    fetchLogs();
    const plusOne = ctx.spawn(addOneP, scaled);
    const got = (await plusOne) as Float32Array;
    const moves = fetchLogs().filter((e) => e.kind === 'move' && e.task === plusOne.id);
    disableLogging();
    expect(got[9]).toBeCloseTo(a[9] * 2 + 1, 4);
    // The input stayed with the GpujsProc: nothing had to travel back to it.
    expect(moves).toEqual([]);
    if (mode === 'headlessgl') expect(texturesAfterFetch).toBeGreaterThanOrEqual(1);
    fetched[9] = -1; // the caller's copy is its own
    expect(((await scaled.fetch()) as Float32Array)[9]).toBeCloseTo(a[9] * 2, 4);
  });

  it('compiles each kernel once per processor, cached by source and settings', async () => {
    const { ctx, plugin } = await gpujsRig({ mode });
    const before = plugin.stats();
    const delta = () => {
      const now = plugin.stats();
      return {
        compiled: now.compiled - before.compiled,
        cacheHits: now.cacheHits - before.cacheHits,
        runs: now.runs - before.runs,
      };
    };
    const a = randomMatrix(N, 4);
    const src = 'function (a, f) { return a[this.thread.x] * f + this.constants.tag; }';
    const tag = Math.random();
    const k = kernel(src, { output: [N * N], pipeline: true, constants: { tag } });
    for (let i = 0; i < 5; i++) await ctx.spawn(k, a, i);
    expect(delta()).toEqual({ compiled: 1, cacheHits: 4, runs: 5 });
    // Same source, other settings: a second compiled kernel.
    const shorter = kernel(src, { output: [N], pipeline: true, constants: { tag } });
    const out = await ctx.spawn(shorter, a, 2);
    expect(out.length).toBe(N);
    expect(out[7]).toBeCloseTo(a[7] * 2 + tag, 4);
    expect(delta()).toEqual({ compiled: 2, cacheHits: 4, runs: 6 });
  });
});

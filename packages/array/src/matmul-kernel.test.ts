import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, distribute } from './index.js';
import type { Block } from './kernels.js';
import { matmulBlocks, matmulBlocksJs } from './matmul-kernel.js';
import { simdKernelsLoaded } from './simd-status.js';

// Tolerance: |SIMD − exact| ≤ TOL[dtype] · k · (1 + |exact|), k the inner dimension (each
// element sums k products in a different order, rounding each in its own precision).
const TOL = { float64: 1e-15, float32: 2e-7 } as const;

let seed = 12345;
function rand(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
}
const int = (lo: number, hi: number) =>
  lo + Math.floor(((rand() + 0.5) * (hi - lo + 1)) % (hi - lo + 1));

type Layout = 'contiguous' | 'transposed' | 'view';

/** A `rows × cols` block of `dtype` laid out as `layout`, and its values (row i, col j). */
function operand(dtype: 'float64' | 'float32', rows: number, cols: number, layout: Layout) {
  const C = dtype === 'float32' ? Float32Array : Float64Array;
  const values = Array.from({ length: rows * cols }, rand);
  const at = (i: number, j: number) => values[i + j * rows];
  if (layout === 'contiguous') {
    const data = new C(rows * cols);
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) data[i + j * rows] = at(i, j);
    return { block: { data, shape: [rows, cols], strides: [1, rows], offset: 0 }, at };
  }
  if (layout === 'transposed') {
    // Row-major storage: the transpose of a column-major block, seen through swapped strides.
    const data = new C(rows * cols);
    for (let j = 0; j < cols; j++) for (let i = 0; i < rows; i++) data[i * cols + j] = at(i, j);
    return { block: { data, shape: [rows, cols], strides: [cols, 1], offset: 0 }, at };
  }
  // A view inside a larger buffer: an offset, a column stride past the rows, every other row.
  const ld = 2 * rows + 3;
  const offset = 5;
  const data = new C(offset + ld * cols + 2 * rows).fill(Number.NaN);
  for (let j = 0; j < cols; j++)
    for (let i = 0; i < rows; i++) data[offset + 2 * i + j * ld] = at(i, j);
  return { block: { data, shape: [rows, cols], strides: [2, ld], offset }, at };
}

/** Checks `got` (an `m × n` column-major block) against Σ A·B computed in Float64. */
function check(
  got: Block,
  m: number,
  n: number,
  parts: { a: any; b: any; k: number }[],
  tol: number,
) {
  expect(got.shape).toEqual([m, n]);
  let kSum = 0;
  for (const p of parts) kSum += p.k;
  let worst = 0;
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      let exact = 0;
      for (const { a, b, k } of parts) for (let q = 0; q < k; q++) exact += a.at(i, q) * b.at(q, j);
      const delta = Math.abs(got.data[i + j * m] - exact) / (1 + Math.abs(exact));
      worst = Math.max(worst, delta);
    }
  expect(worst).toBeLessThanOrEqual(tol * Math.max(kSum, 1));
}

describe('matmulBlocks (WebAssembly SIMD gemm)', () => {
  it('loads the SIMD kernels on Node 20', () => {
    expect(simdKernelsLoaded()).toBe(true);
  });

  for (const dtype of ['float64', 'float32'] as const) {
    it(`matches Σ A·B in ${dtype} on random and odd shapes, transposes and views`, () => {
      const layouts: Layout[] = ['contiguous', 'transposed', 'view'];
      const shapes: [number, number, number][] = [
        [1, 1, 1],
        [3, 5, 7],
        [4, 4, 4],
        [8, 1, 9],
        [13, 17, 3],
        [129, 70, 5], // past the A block's rows (MC)
        [9, 300, 6], // past the B panel's depth (KC)
      ];
      for (let r = 0; r < 6; r++) shapes.push([int(1, 40), int(1, 40), int(1, 40)]);
      for (const [m, k, n] of shapes) {
        for (const la of layouts) {
          const lb = layouts[(layouts.indexOf(la) + m) % 3];
          const count = 1 + ((m + n) % 3);
          const parts = Array.from({ length: count }, () => ({
            a: operand(dtype, m, k, la),
            b: operand(dtype, k, n, lb),
            k,
          }));
          const got = matmulBlocks(
            dtype,
            count,
            ...parts.map((p) => p.a.block),
            ...parts.map((p) => p.b.block),
          );
          expect(got.data).toBeInstanceOf(dtype === 'float32' ? Float32Array : Float64Array);
          check(got, m, n, parts, TOL[dtype]);
        }
      }
    });

    it(`agrees with the plain JavaScript kernel in ${dtype} on contiguous blocks`, () => {
      for (const [m, k, n] of [
        [31, 33, 35],
        [64, 64, 64],
        [5, 130, 2],
      ]) {
        const parts = [0, 1].map(() => ({
          a: operand(dtype, m, k, 'contiguous'),
          b: operand(dtype, k, n, 'contiguous'),
          k,
        }));
        const blocks = [...parts.map((p) => p.a.block), ...parts.map((p) => p.b.block)];
        check(matmulBlocks(dtype, 2, ...blocks), m, n, parts, TOL[dtype]);
        check(matmulBlocksJs(dtype, 2, ...blocks), m, n, parts, TOL[dtype]);
      }
    });
  }

  it('int32 keeps the plain JavaScript kernel (exact)', () => {
    const a = { data: Int32Array.from([1, 2, 3, 4]), shape: [2, 2], strides: [1, 2], offset: 0 };
    const got = matmulBlocks('int32', 1, a, a);
    expect(Array.from(got.data)).toEqual([7, 10, 15, 22]);
  });
});

describe('matmul on worker threads with the SIMD kernels', () => {
  it('a float32 DArray product on 2 threads equals the float64 one within float32 rounding', async () => {
    const ctx = await rigForTest();
    const N = 70;
    const values = Float64Array.from({ length: N * N }, rand);
    const blocks = new Blocks(32, 32);
    const p64 = distribute(values, [N, N], blocks, { context: ctx });
    const p32 = distribute(values, [N, N], blocks, { context: ctx, dtype: 'float32' });
    const [{ data: r64 }, { data: r32 }] = await Promise.all([
      p64.matmul(p64).collect(),
      p32.matmul(p32).collect(),
    ]);
    expect(r32).toBeInstanceOf(Float32Array);
    for (let i = 0; i < r64.length; i++)
      expect(Math.abs(r32[i] - r64[i])).toBeLessThanOrEqual(
        TOL.float32 * N * (1 + Math.abs(r64[i])),
      );
    // The workers run the SIMD kernels too.
    const onWorker = await ctx.spawn({ scope: scope({ worker: 1, thread: 2 }) }, simdKernelsLoaded);
    expect(onWorker).toBe(true);
  });
});

describe('choosing the kernels in a user program', () => {
  const kernels = fileURLToPath(new URL('../dist/kernels.js', import.meta.url));
  const run = (env: Record<string, string>) =>
    new Promise<{ code: number; out: string }>((resolve) =>
      execFile(
        process.execPath,
        [
          '--input-type=module',
          '-e',
          `import { simdKernelsLoaded, makeBlock, matmulBlocks } from ${JSON.stringify(kernels)};
const a = makeBlock('float32', [9, 9], 'rand', 0, 3);
const c = matmulBlocks('float32', 1, a, a);
console.log(simdKernelsLoaded(), c.data.constructor.name);`,
        ],
        { env: { ...process.env, ...env }, timeout: 20_000 },
        (error, stdout, stderr) =>
          resolve({ code: error ? ((error.code as number) ?? 1) : 0, out: stdout + stderr }),
      ),
    );

  it('runs SIMD by default and the plain JavaScript kernels under DTASK_ARRAY_KERNELS=js', async () => {
    const simd = await run({});
    expect(simd).toEqual({ code: 0, out: 'true Float32Array\n' });
    const js = await run({ DTASK_ARRAY_KERNELS: 'js' });
    expect(js).toEqual({ code: 0, out: 'false Float32Array\n' });
  });
});

// The blocked matrix product's kernels: self-contained, so they travel to worker threads as
// source. `matmulBlocks` runs the SIMD gemm (simd-install.ts) where the runtime has 128-bit
// WebAssembly SIMD, and `matmulBlocksJs`, spliced into its source, otherwise.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { installSimd } from './simd-install.js';

declare const __DTASK_SIMD__: typeof installSimd;
declare const __DTASK_LINK_js__: typeof matmulBlocksJs;

function matmulBlocksSimd(dtype: string, count: number, ...blocks: Block[]): Block {
  const simd = dtype === 'float64' || dtype === 'float32' ? __DTASK_SIMD__() : null;
  if (simd === null) return __DTASK_LINK_js__(dtype, count, ...blocks);
  const f32 = dtype === 'float32';
  const m = blocks[0].shape[0];
  const n = blocks[count].shape[1];
  const bytes = new SharedArrayBuffer(m * n * (f32 ? 4 : 8));
  const data = f32 ? new Float32Array(bytes) : new Float64Array(bytes);
  const products: any[] = [];
  for (let p = 0; p < count; p++) {
    const a = blocks[p];
    const b = blocks[count + p];
    products.push([
      [a.data, a.offset, a.strides[0], a.strides[1]],
      [b.data, b.offset, b.strides[0], b.strides[1]],
      a.shape[1],
    ]);
  }
  simd.gemm(f32, m, n, products, 1, 0, [data, 0, 1, m]);
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}

/**
 * `Σₚ A[p]·B[p]` over the `count` blocks of a row of A (`blocks[0 … count)`) and the `count`
 * blocks of a column of B (`blocks[count … 2·count)`), all 2-D strided views: a new
 * column-major block of `dtype`. float64 and float32 run the WebAssembly SIMD gemm in their
 * own precision where the runtime supports it (`simdKernelsLoaded()`), else
 * `matmulBlocksJs`.
 */
export const matmulBlocks: (dtype: string, count: number, ...blocks: Block[]) => Block = linkKernel(
  matmulBlocksSimd,
  'matmulBlocks',
  { js: matmulBlocksJs },
);

/**
 * `matmulBlocks` in plain JavaScript, for contiguous column-major blocks: a new block of
 * `dtype` (accumulated in Float64). Four columns of A at a time, so each element of the result
 * is loaded and stored once per four multiply-adds.
 */
export function matmulBlocksJs(dtype: string, count: number, ...blocks: Block[]): Block {
  if (dtype === 'complex128' || dtype === 'complex64') {
    // (re, im) pairs: C += A·B in Float64, one column of B at a time.
    const m = blocks[0].shape[0];
    const n = blocks[count].shape[1];
    const acc = new Float64Array(2 * m * n);
    for (let p = 0; p < count; p++) {
      const a = blocks[p].data;
      const b = blocks[count + p].data;
      const k = blocks[p].shape[1];
      for (let j = 0; j < n; j++)
        for (let q = 0; q < k; q++) {
          const br = b[2 * (q + j * k)];
          const bi = b[2 * (q + j * k) + 1];
          for (let i = 0; i < m; i++) {
            const ar = a[2 * (i + q * m)];
            const ai = a[2 * (i + q * m) + 1];
            acc[2 * (i + j * m)] += ar * br - ai * bi;
            acc[2 * (i + j * m) + 1] += ar * bi + ai * br;
          }
        }
    }
    const Z = (dtype === 'complex64' ? Float32Array : Float64Array) as Float64ArrayConstructor;
    const data = new Z(new SharedArrayBuffer(2 * m * n * Z.BYTES_PER_ELEMENT));
    data.set(acc);
    return { data, shape: [m, n], strides: [1, m], offset: 0 };
  }
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  const m = blocks[0].shape[0];
  const n = blocks[count].shape[1];
  const acc =
    dtype === 'float64'
      ? new Float64Array(new SharedArrayBuffer(8 * m * n))
      : new Float64Array(m * n);
  for (let p = 0; p < count; p++) {
    const a = blocks[p].data;
    const b = blocks[count + p].data;
    const k = blocks[p].shape[1];
    for (let j = 0; j < n; j++) {
      const cj = j * m;
      const bj = j * k;
      let q = 0;
      for (; q + 3 < k; q += 4) {
        const b0 = b[bj + q];
        const b1 = b[bj + q + 1];
        const b2 = b[bj + q + 2];
        const b3 = b[bj + q + 3];
        const a0 = q * m;
        const a1 = a0 + m;
        const a2 = a1 + m;
        const a3 = a2 + m;
        for (let i = 0; i < m; i++) {
          acc[cj + i] += a[a0 + i] * b0 + a[a1 + i] * b1 + a[a2 + i] * b2 + a[a3 + i] * b3;
        }
      }
      for (; q < k; q++) {
        const bv = b[bj + q];
        const aq = q * m;
        for (let i = 0; i < m; i++) acc[cj + i] += a[aq + i] * bv;
      }
    }
  }
  if (dtype === 'float64') return { data: acc, shape: [m, n], strides: [1, m], offset: 0 };
  const data = new C(new SharedArrayBuffer(m * n * C.BYTES_PER_ELEMENT));
  data.set(acc);
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}

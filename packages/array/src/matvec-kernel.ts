// The blocked matrix × vector product's kernel: self-contained, so it travels to worker threads
// and processes as source. float64 and float32 run the SIMD gemm (one column) where the runtime
// has 128-bit WebAssembly SIMD; plain JavaScript loops otherwise.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { installSimd } from './simd-install.js';

declare const __DTASK_SIMD__: typeof installSimd;

function matvecBlocksKernel(dtype: string, count: number, ...blocks: Block[]): Block {
  // The typed array of the dtype's name ('uint8': Uint8Array).
  const C = (globalThis as any)[
    `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`
  ] as Float64ArrayConstructor;
  const m = blocks[0].shape[0];
  const out = new C(new SharedArrayBuffer(m * C.BYTES_PER_ELEMENT));
  const simd = dtype === 'float64' || dtype === 'float32' ? __DTASK_SIMD__() : null;
  if (simd !== null) {
    const products: any[] = [];
    for (let p = 0; p < count; p++) {
      const a = blocks[p];
      const x = blocks[count + p];
      products.push([
        [a.data, a.offset, a.strides[0], a.strides[1]],
        [x.data, x.offset, x.strides[0], 0],
        a.shape[1],
      ]);
    }
    simd.gemm(dtype === 'float32', m, 1, products, 1, 0, [out, 0, 1, m]);
    return { data: out, shape: [m], strides: [1], offset: 0 };
  }
  const acc = new Float64Array(m);
  for (let p = 0; p < count; p++) {
    const a = blocks[p];
    const x = blocks[count + p];
    const [rs, cs] = a.strides;
    for (let q = 0; q < a.shape[1]; q++) {
      const v = x.data[x.offset + q * x.strides[0]];
      if (v === 0) continue;
      const col = a.offset + q * cs;
      for (let i = 0; i < m; i++) acc[i] += a.data[col + i * rs] * v;
    }
  }
  out.set(acc);
  return { data: out, shape: [m], strides: [1], offset: 0 };
}

/**
 * `Σₚ A[p]·x[p]` over the `count` blocks of a block row of A (`blocks[0 … count)`, 2-D strided
 * views) and the `count` pieces of the vector x (`blocks[count … 2·count)`, 1-D): a new 1-D
 * block of `dtype` (Julia's `A * x` for one block row). SIMD for float64 and float32 where the
 * runtime has it (int32 and the fallback accumulate in Float64).
 */
export const matvecBlocks: (dtype: string, count: number, ...blocks: Block[]) => Block = linkKernel(
  matvecBlocksKernel,
  'matvecBlocks',
);

// The block kernel of fused element-wise chains in WebAssembly SIMD: the chain's SIMD program
// (simd-plan.ts) over the block's arrays. Self-contained, so it travels to worker threads as
// source; where SIMD is missing (or DTASK_ARRAY_KERNELS=js), or an input is not of the
// program's float type, it runs the chain's JavaScript loop (`fusedBlock`, spliced into its
// source), which gives the same values to the bit.
import { fusedBlock } from './fused-kernel.js';
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { installSimd } from './simd-install.js';
import type { SimdPlan } from './simd-plan.js';

declare const __DTASK_SIMD__: typeof installSimd;
declare const __DTASK_LINK_js__: typeof fusedBlock;

function fusedSimd(
  program: string,
  plan: SimdPlan,
  dtype: string,
  scalars: readonly number[],
  ...inputs: Block[]
): Block {
  const simd = __DTASK_SIMD__();
  const C = (plan.float32 ? Float32Array : Float64Array) as Float64ArrayConstructor;
  const a = inputs[0];
  const n = a.data.length;
  if (simd === null || !inputs.every((b) => b.data instanceof C && b.data.length >= n)) {
    return __DTASK_LINK_js__(program, dtype, scalars, ...inputs);
  }
  // A released block's memory where the worker runtime has one (block-pool.ts in @dtask/core):
  // the program writes all `n` elements.
  const bytes = n * C.BYTES_PER_ELEMENT;
  const memory = (globalThis as Record<symbol, unknown>)[Symbol.for('@dtask/core.blockMemory')] as
    | ((bytes: number, kernel: Function) => SharedArrayBuffer | undefined)
    | undefined;
  const data = new C(memory?.(bytes, fusedSimd) ?? new SharedArrayBuffer(bytes));
  const arrays = inputs.map((b) => b.data);
  simd.elementwise(plan.float32, plan.code, plan.slots, plan.result, plan.scalars, arrays, data, n);
  return { data, shape: a.shape, strides: a.strides, offset: 0 };
}

/**
 * `fusedBlock` of a chain with a SIMD program `plan`: the same block, to the bit, computed in
 * WebAssembly SIMD a chunk of 4096 elements at a time.
 */
export const fusedBlockSimd: (
  program: string,
  plan: SimdPlan,
  dtype: string,
  scalars: readonly number[],
  ...inputs: Block[]
) => Block = linkKernel(fusedSimd, 'fusedBlockSimd', { js: fusedBlock });

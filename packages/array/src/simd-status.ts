// Whether this runtime runs the block kernels in WebAssembly SIMD.
import { linkKernel } from './kernel-link.js';
import type { installSimd } from './simd-install.js';

declare const __DTASK_SIMD__: typeof installSimd;

function simdLoaded(): boolean {
  return __DTASK_SIMD__() !== null;
}

/**
 * True when the block kernels run in WebAssembly with 128-bit SIMD in this runtime: its
 * WebAssembly validates the SIMD module and `DTASK_ARRAY_KERNELS=js` was not set when the first
 * kernel ran (the plain JavaScript kernels run otherwise). Self-contained: a task may call it
 * to ask a worker.
 */
export const simdKernelsLoaded: () => boolean = linkKernel(simdLoaded, 'simdKernelsLoaded');

// Whole-block reductions (sum, sum of squares, sum of |x|, product, min, max, min and max of |x|) in
// WebAssembly SIMD where the runtime has it, plain JavaScript otherwise. Self-contained, so
// they travel to worker threads as source; the SIMD one has the JavaScript one spliced in.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { installSimd } from './simd-install.js';

declare const __DTASK_SIMD__: typeof installSimd;
declare const __DTASK_LINK_js__: typeof reduceWholeJs;

/** The reductions `reduceWhole` knows. */
export type WholeReduction =
  | 'sum'
  | 'sumsq'
  | 'sumabs'
  | 'prod'
  | 'min'
  | 'max'
  | 'minabs'
  | 'maxabs';

function reduceWholeSimd(op: WholeReduction, block: Block): number {
  const { data, shape, strides, offset } = block;
  const simd =
    data instanceof Float64Array || data instanceof Float32Array ? __DTASK_SIMD__() : null;
  const nd = shape.length;
  let n = 1;
  for (const s of shape) n *= s;
  // Contiguous runs along the first dimension (the whole block when it is contiguous).
  let run = nd === 0 ? 1 : shape[0];
  let d0 = 1;
  while (d0 < nd && strides[d0] === run) run *= shape[d0++];
  if (simd === null || n === 0 || (nd > 0 && strides[0] !== 1) || run < 16)
    return __DTASK_LINK_js__(op, block);
  const sum = op.startsWith('sum');
  const max = op.startsWith('max');
  const prod = op === 'prod';
  const idx = new Array<number>(nd).fill(0);
  let acc = 0;
  for (let k = 0; k < n; k += run) {
    let at = offset;
    for (let d = d0; d < nd; d++) at += idx[d] * strides[d];
    const r = simd.reduce(op, data as Float64Array, at, run);
    acc = k === 0 ? r : sum ? acc + r : prod ? acc * r : max ? Math.max(acc, r) : Math.min(acc, r);
    for (let d = d0; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return acc;
}

/**
 * The reduction `op` of every element of `block` (a strided view of any dtype), visiting its
 * elements in column-major order: `'sum'` (Σx), `'sumsq'` (Σx²), `'sumabs'` (Σ|x|), `'prod'`
 * (Πx), `'min'`, `'max'`, `'minabs'`, `'maxabs'` (NaN wins, as with Math.min / Math.max). Sums
 * of an empty block are 0, products 1 (Julia's empty sum and product); the others of an empty
 * block are NaN. In WebAssembly SIMD where the runtime has it (`simdKernelsLoaded()`) for
 * float64 and float32 blocks whose first dimension is contiguous: the same value as
 * `reduceWholeJs` within rounding (sums and products in another order, float32 ones in Float64
 * both ways; min and max are exact); `reduceWholeJs` otherwise.
 */
export const reduceWhole: (op: WholeReduction, block: Block) => number = linkKernel(
  reduceWholeSimd,
  'reduceWhole',
  { js: reduceWholeJs },
);

/** `reduceWhole` in plain JavaScript: one element after the other, in column-major order. */
export function reduceWholeJs(op: WholeReduction, block: Block): number {
  const { data, shape, strides, offset } = block;
  const nd = shape.length;
  let n = 1;
  for (const s of shape) n *= s;
  const sum = op.startsWith('sum');
  if (n === 0) return sum ? 0 : op === 'prod' ? 1 : Number.NaN;
  const abs = op.endsWith('abs');
  const max = op.startsWith('max');
  const idx = new Array<number>(nd).fill(0);
  const run = nd === 0 ? 1 : shape[0];
  const st = nd === 0 ? 1 : strides[0];
  let acc = sum ? 0 : op === 'prod' ? 1 : abs ? Math.abs(data[offset]) : data[offset];
  for (let k = 0; k < n; k += run) {
    let at = offset;
    for (let d = 1; d < nd; d++) at += idx[d] * strides[d];
    if (op === 'sum') for (let q = 0, i = at; q < run; q++, i += st) acc += data[i];
    else if (op === 'sumsq')
      for (let q = 0, i = at; q < run; q++, i += st) acc += data[i] * data[i];
    else if (op === 'sumabs')
      for (let q = 0, i = at; q < run; q++, i += st) acc += Math.abs(data[i]);
    else if (op === 'prod') for (let q = 0, i = at; q < run; q++, i += st) acc *= data[i];
    else if (op === 'max')
      for (let q = 0, i = at; q < run; q++, i += st) acc = Math.max(acc, data[i]);
    else if (op === 'min')
      for (let q = 0, i = at; q < run; q++, i += st) acc = Math.min(acc, data[i]);
    else if (max)
      for (let q = 0, i = at; q < run; q++, i += st) acc = Math.max(acc, Math.abs(data[i]));
    else for (let q = 0, i = at; q < run; q++, i += st) acc = Math.min(acc, Math.abs(data[i]));
    for (let d = 1; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return acc;
}

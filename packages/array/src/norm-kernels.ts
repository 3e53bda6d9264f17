// The block kernels of `norm` and `opnorm`. Each is self-contained (no imports, no outer
// variables) so it travels to worker threads and processes as source text; `blockNormPart`
// has `reduceWhole` (WebAssembly SIMD where the runtime has it) spliced in for p = 1, 2, ±∞.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import { reduceWhole } from './reduce-whole.js';

declare const __DTASK_LINK_whole__: typeof reduceWhole;

function normPart(p: number, block: Block): number {
  const { data, shape, strides, offset } = block;
  const nd = shape.length;
  let n = 1;
  for (const s of shape) n *= s;
  let acc = p === Number.POSITIVE_INFINITY ? 0 : p === Number.NEGATIVE_INFINITY ? Infinity : 0;
  if (n === 0) return acc;
  if (p === 2) return __DTASK_LINK_whole__('sumsq', block);
  if (p === 1) return __DTASK_LINK_whole__('sumabs', block);
  if (p === Number.POSITIVE_INFINITY) return __DTASK_LINK_whole__('maxabs', block);
  if (p === Number.NEGATIVE_INFINITY) return __DTASK_LINK_whole__('minabs', block);
  const idx = new Array<number>(nd).fill(0);
  const run = nd === 0 ? 1 : shape[0];
  const st = nd === 0 ? 1 : strides[0];
  for (let k = 0; k < n; k += run) {
    let at = offset;
    for (let d = 1; d < nd; d++) at += idx[d] * strides[d];
    for (let i = 0; i < run; i++) {
      const x = Math.abs(data[at + i * st]);
      if (p === 2) acc += x * x;
      else if (p === 1) acc += x;
      else if (p === Number.POSITIVE_INFINITY) acc = Math.max(x, acc);
      else if (p === Number.NEGATIVE_INFINITY) acc = Math.min(x, acc);
      else if (p === 0) acc += x !== 0 ? 1 : 0;
      else acc += x ** p;
    }
    for (let d = 1; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return acc;
}

/**
 * One block's share of `norm(A, p)`: the sum of `|x|^p` (p finite and not 0), the count of
 * non-zeros (p = 0), or the largest / smallest `|x|` (p = ±Infinity). For p = 2 the sum of
 * squares. Visits the block's elements through its strides (a view's block too); p = 1, 2 and
 * ±Infinity run `reduceWhole` (WebAssembly SIMD where the runtime has it).
 */
export const blockNormPart: (p: number, block: Block) => number = linkKernel(
  normPart,
  'blockNormPart',
  { whole: reduceWhole },
);

/**
 * One 2-D block's sums of `|x|`: along its columns (`dim` 0, one per column, for `opnorm(A, 1)`)
 * or along its rows (`dim` 1, one per row, for `opnorm(A, Infinity)`).
 */
export function blockAbsSums(dim: number, block: Block): Float64Array {
  const { data, shape, strides, offset } = block;
  const [rows, cols] = shape;
  const out = new Float64Array(dim === 0 ? cols : rows);
  for (let j = 0; j < cols; j++) {
    const at = offset + j * strides[1];
    for (let i = 0; i < rows; i++) {
      const x = Math.abs(data[at + i * strides[0]]);
      out[dim === 0 ? j : i] += x;
    }
  }
  return out;
}

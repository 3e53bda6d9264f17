// Kernels that rearrange elements (transpose, slicing, re-blocking): self-contained (or with
// the parts they use linked into their source), so they travel to worker threads as source text.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import { newBlock } from './new-block.js';

declare const __DTASK_LINK_newBlock__: typeof newBlock;

/** The transpose of a 2-D block (`complex`: of (re, im) pairs): a new block of its type. */
export function transposeBlock(a: Block, complex = false): Block {
  const [m, n] = a.shape;
  const C = a.data.constructor as Float64ArrayConstructor;
  const w = complex ? 2 : 1;
  const data = new C(new SharedArrayBuffer(w * m * n * C.BYTES_PER_ELEMENT));
  const x = a.data;
  if (complex) {
    for (let j = 0; j < n; j++)
      for (let i = 0; i < m; i++) {
        data[2 * (j + i * n)] = x[2 * (i + j * m)];
        data[2 * (j + i * n) + 1] = x[2 * (i + j * m) + 1];
      }
  } else for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) data[j + i * n] = x[i + j * m];
  return { data, shape: [n, m], strides: [1, n], offset: 0 };
}

/** One piece of an assembled block: which box of a source goes where. */
export interface Piece {
  /** Index of the first source element, per dimension. */
  from: number[];
  /** Step between source elements, per dimension (1 for a contiguous range). */
  step: number[];
  /** Index in the new block of the first element, per dimension. */
  to: number[];
  /** Elements per dimension. */
  size: number[];
}

function assembleBlockKernel(
  dtype: string,
  shape: number[],
  plan: Piece[],
  ...sources: Block[]
): Block {
  const block = __DTASK_LINK_newBlock__(dtype, shape);
  const { data, strides } = block;
  const w = dtype.startsWith('complex') ? 2 : 1;
  for (let p = 0; p < plan.length; p++) {
    const { from, step, to, size } = plan[p];
    const src = sources[p];
    const nd = size.length;
    let count = 1;
    for (const s of size) count *= s;
    // Along dimension 0 the copy is a strided run; the outer dimensions walk an odometer.
    const run = size[0];
    const sStep = step[0] * src.strides[0];
    const idx = new Array(nd).fill(0);
    for (let r = 0; r < count; r += run) {
      let si = src.offset;
      let di = 0;
      for (let d = 0; d < nd; d++) {
        si += (from[d] + idx[d] * step[d]) * src.strides[d];
        di += (to[d] + idx[d]) * strides[d];
      }
      // A long contiguous run by `set`, which copies (or converts, as an element store does)
      // natively: the loops below meet every typed array type and are megamorphic.
      if (sStep === 1 && w * run >= 64)
        data.set(src.data.subarray(w * si, w * (si + run)) as Float64Array, w * di);
      else if (w === 1) for (let i = 0; i < run; i++) data[di + i] = src.data[si + i * sStep];
      else
        for (let i = 0; i < run; i++) {
          data[2 * (di + i)] = src.data[2 * (si + i * sStep)];
          data[2 * (di + i) + 1] = src.data[2 * (si + i * sStep) + 1];
        }
      for (let d = 1; d < nd; d++) {
        idx[d]++;
        if (idx[d] < size[d]) break;
        idx[d] = 0;
      }
    }
  }
  return block;
}

/**
 * A new block of `shape` and `dtype` assembled from pieces of `sources`: `plan[p]` copies a
 * box of `sources[p]` (strided by `step`, any layout the source's `strides`/`offset` give) to
 * `plan[p].to` in the new (column-major) block. Elements the plan does not cover are 0.
 */
export const assembleBlock: (
  dtype: string,
  shape: number[],
  plan: Piece[],
  ...sources: Block[]
) => Block = linkKernel(assembleBlockKernel, 'assembleBlock', { newBlock });

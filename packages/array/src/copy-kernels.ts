// Kernels of views, assignment and copyto: self-contained (no imports, no outer variables, or
// the parts they use linked into their source), so they travel to worker threads and processes
// as source text.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import { newBlock } from './new-block.js';

declare const __DTASK_LINK_newBlock__: typeof newBlock;

/**
 * One piece of a block copy. Along each axis (a dimension of more than one element) the
 * destination's local indices `dst` pair in order with the source's `src`; every other
 * dimension sits at the fixed local index of `dstFixed` / `srcFixed`.
 */
export interface CopyPiece {
  /** The local index of every destination dimension (those of `axes` overridden). */
  dstFixed: number[];
  /** The local index of every source dimension (those of `axes` overridden). */
  srcFixed: number[];
  /** The paired dimensions: destination dimension `dd` with source dimension `sd`. */
  axes: { dd: number; sd: number; dst: number[]; src: number[] }[];
}

function writeBlockKernel(
  dtype: string,
  shape: number[],
  covered: boolean,
  pieces: CopyPiece[],
  value: number | number[] | null,
  base: Block | null,
  ...sources: Block[]
): Block {
  const block = __DTASK_LINK_newBlock__(dtype, shape);
  const { data, strides } = block;
  const w = dtype.startsWith('complex') ? 2 : 1;
  const n = data.length / w;
  // A number fills (a complex element with it as its real part); `[re, im]` fills complex ones.
  const v0 = value === null ? 0 : typeof value === 'number' ? value : value[0];
  const v1 = value === null || typeof value === 'number' ? 0 : value[1];
  const nd = shape.length;
  if (base !== null && !covered) {
    // The old values, read through the base's strides (contiguous column-major: one copy).
    let contiguous = base.offset === 0 && base.data.length === w * n;
    for (let d = 0; d < nd; d++)
      if (base.strides[d] !== strides[d] && shape[d] > 1) contiguous = false;
    if (contiguous) data.set(base.data as unknown as Float64Array);
    else {
      const idx = new Array(nd).fill(0);
      for (let i = 0; i < n; i++) {
        let o = base.offset;
        for (let d = 0; d < nd; d++) o += idx[d] * base.strides[d];
        if (w === 1) data[i] = base.data[o];
        else {
          data[2 * i] = base.data[2 * o];
          data[2 * i + 1] = base.data[2 * o + 1];
        }
        for (let d = 0; d < nd; d++) {
          if (++idx[d] < shape[d]) break;
          idx[d] = 0;
        }
      }
    }
  }
  for (let p = 0; p < pieces.length; p++) {
    const { dstFixed, srcFixed, axes } = pieces[p];
    const src = value === null ? sources[p] : null;
    let dBase = 0;
    for (let d = 0; d < nd; d++) dBase += dstFixed[d] * strides[d];
    let sBase = src === null ? 0 : src.offset;
    if (src !== null)
      for (let d = 0; d < srcFixed.length; d++) {
        if (srcFixed[d] !== 0) sBase += srcFixed[d] * src.strides[d]; // a missing trailing dim is 0
      }
    // Take out the fixed contribution of the axes' dimensions: they move along their lists.
    for (const a of axes) {
      dBase -= dstFixed[a.dd] * strides[a.dd];
      if (src !== null) sBase -= srcFixed[a.sd] * src.strides[a.sd];
    }
    if (axes.length === 0) {
      if (w === 1) data[dBase] = src === null ? v0 : src.data[sBase];
      else {
        data[2 * dBase] = src === null ? v0 : src.data[2 * sBase];
        data[2 * dBase + 1] = src === null ? v1 : src.data[2 * sBase + 1];
      }
      continue;
    }
    // The first axis is the inner loop; the others walk an odometer.
    const inner = axes[0];
    const dS0 = strides[inner.dd];
    const sS0 = src === null ? 0 : src.strides[inner.sd];
    const len = inner.dst.length;
    const pos = new Array(axes.length).fill(0);
    for (;;) {
      let dOff = dBase;
      let sOff = sBase;
      for (let c = 1; c < axes.length; c++) {
        dOff += axes[c].dst[pos[c]] * strides[axes[c].dd];
        if (src !== null) sOff += axes[c].src[pos[c]] * src.strides[axes[c].sd];
      }
      if (w === 2) {
        const x = src === null ? null : src.data;
        for (let i = 0; i < len; i++) {
          const di = 2 * (dOff + inner.dst[i] * dS0);
          const si = 2 * (sOff + (x === null ? 0 : inner.src[i] * sS0));
          data[di] = x === null ? v0 : x[si];
          data[di + 1] = x === null ? v1 : x[si + 1];
        }
      } else if (src === null) {
        for (let i = 0; i < len; i++) data[dOff + inner.dst[i] * dS0] = v0;
      } else {
        const x = src.data;
        for (let i = 0; i < len; i++)
          data[dOff + inner.dst[i] * dS0] = x[sOff + inner.src[i] * sS0];
      }
      let c = 1;
      for (; c < axes.length; c++) {
        if (++pos[c] < axes[c].dst.length) break;
        pos[c] = 0;
      }
      if (c === axes.length) break;
    }
  }
  return block;
}

/**
 * A new block of `dtype` and `shape`: a copy of `base` (zeros when `base` is null or `covered`
 * says every element is written), then each piece written in turn from `sources[p]`, or
 * `value` everywhere the pieces reach when `value` is a number. Sources may be any strided
 * view (their `strides` and `offset` are followed).
 */
export const writeBlock: (
  dtype: string,
  shape: number[],
  covered: boolean,
  pieces: CopyPiece[],
  value: number | number[] | null,
  base: Block | null,
  ...sources: Block[]
) => Block = linkKernel(writeBlockKernel, 'writeBlock', { newBlock });

/** The element at `local` (one index per dimension) of `block`. */
export function elementAt(block: Block, local: number[]): number {
  let o = block.offset;
  for (let d = 0; d < local.length; d++) o += local[d] * block.strides[d];
  return block.data[o];
}

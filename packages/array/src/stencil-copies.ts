// Copies of a block or a box of it, made where the block lives. Each is self-contained (no
// imports, no outer variables) so it travels to worker threads and processes as source text.
import type { Block } from './kernels.js';

/** A compact copy of the box `[lo, hi)` (block-local, per dimension) of `block`. */
export function haloStrip(block: Block, lo: number[], hi: number[]): Block {
  const C = block.data.constructor as Float64ArrayConstructor;
  const nd = lo.length;
  const shape = lo.map((a, d) => hi[d] - a);
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const idx = new Array(nd).fill(0);
  const run = shape[0];
  for (let o = 0; o < n; o += run) {
    let src = block.offset;
    for (let d = 0; d < nd; d++) src += (lo[d] + idx[d]) * block.strides[d];
    if (block.strides[0] === 1) data.set(block.data.subarray(src, src + run), o);
    else for (let i = 0; i < run; i++) data[o + i] = block.data[src + i * block.strides[0]];
    for (let d = 1; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data, shape, strides, offset: 0 };
}

/** A compact copy of the whole of `block` (a snapshot a later write does not change). */
export function copyBlock(block: Block): Block {
  const C = block.data.constructor as Float64ArrayConstructor;
  const nd = block.shape.length;
  const shape = [...block.shape];
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT));
  const idx = new Array(nd).fill(0);
  const run = nd === 0 ? 1 : shape[0];
  const st = nd === 0 ? 1 : block.strides[0];
  for (let o = 0; o < n; o += run) {
    let src = block.offset;
    for (let d = 0; d < nd; d++) src += idx[d] * block.strides[d];
    if (st === 1) data.set(block.data.subarray(src, src + run), o);
    else for (let i = 0; i < run; i++) data[o + i] = block.data[src + i * st];
    for (let d = 1; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return { data, shape, strides, offset: 0 };
}

import { ArgumentError } from '@dtask/core';
import { Blocks, gridIndices, gridOf } from './blocks.js';
import { DArray } from './darray.js';
import { widthOf } from './dtype.js';
import type { Block } from './kernels.js';
import { chunkIndex, describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';

/**
 * A block with its dimensions reordered: dimension `d` of the result is `perm[d]` of `a` (`w`:
 * numbers per element, 2 for a complex block).
 */
export function permuteBlock(a: Block, perm: number[], w = 1): Block {
  const C = a.data.constructor as Float64ArrayConstructor;
  const nd = perm.length;
  const shape = perm.map((p) => a.shape[p]);
  const strides: number[] = [];
  let n = 1;
  for (const s of shape) {
    strides.push(n);
    n *= s;
  }
  const data = new C(new SharedArrayBuffer(w * n * C.BYTES_PER_ELEMENT));
  // Walk the result in order; the source index moves by the permuted source strides.
  const from = perm.map((p) => a.strides[p]);
  const idx = new Array(nd).fill(0);
  let o = a.offset;
  for (let i = 0; i < n; i++) {
    if (w === 1) data[i] = a.data[o];
    else {
      data[2 * i] = a.data[2 * o];
      data[2 * i + 1] = a.data[2 * o + 1];
    }
    for (let d = 0; d < nd; d++) {
      if (++idx[d] < shape[d]) {
        o += from[d];
        break;
      }
      o -= (shape[d] - 1) * from[d];
      idx[d] = 0;
    }
  }
  return { data, shape, strides, offset: 0 };
}

/**
 * Dagger's `permutedims(A, perm)` (0-based): dimension `d` of the result is dimension
 * `perm[d]` of `a`; the blocks and the grid are permuted alike, and each result block is one
 * task permuting one block of `a` where it lives.
 */
export function permutedims(a: DArray, perm: readonly number[]): DArray {
  const nd = a instanceof DArray ? a.shape.length : 0;
  if (
    !(a instanceof DArray) ||
    !Array.isArray(perm) ||
    perm.length !== nd ||
    [...perm].sort((x, y) => x - y).some((p, d) => p !== d)
  ) {
    throw new ArgumentError(
      `permutedims(da, perm): perm must list each dimension 0…${nd - 1} of ${a instanceof DArray ? describe(a) : String(a)} once (0-based: Julia's (2, 1) is [1, 0]); got ${JSON.stringify(perm)}`,
    );
  }
  const shape = perm.map((p) => a.shape[p]);
  const blocks = new Blocks(...perm.map((p) => a.blocks.sizes[p]));
  const spawn = spawnerOf(a.context);
  const chunks = gridIndices(gridOf(shape, blocks)).map((g) => {
    const source = new Array<number>(nd);
    perm.forEach((p, d) => {
      source[p] = g[d];
    });
    const chunk = a.chunks[chunkIndex(a, source)];
    return spawn(ownerOf(chunk, 0), permuteBlock, chunk, [...perm], widthOf(a.dtype));
  });
  return new DArray(shape, blocks, a.dtype, chunks, a.context);
}

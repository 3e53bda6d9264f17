import { blockRanges, columnMajorStrides, gridIndices, lengthOf } from './blocks.js';
import type { Collected, DArray } from './darray.js';
import { arrayOf, widthOf } from './dtype.js';
import type { Block } from './kernels.js';

/** `collect()`'s assembly: the whole of `a` on the caller from its fetched `blocks`, column-major. */
export function wholeArray(a: DArray, blocks: readonly Block[]): Collected {
  const data = arrayOf(a.dtype, lengthOf(a.shape));
  const w = widthOf(a.dtype); // numbers per element: 2 for (re, im) pairs
  const strides = columnMajorStrides(a.shape);
  const indices = gridIndices(a.grid);
  blocks.forEach((block, k) => {
    const starts = blockRanges(a.shape, a.blocks, indices[k]).map(([start]) => start);
    const nd = block.shape.length;
    const run = nd === 0 ? 1 : block.shape[0]; // a 0-dimensional block is one element
    const idx = new Array(nd).fill(0);
    for (let i = 0; i < block.data.length; i += run * w) {
      let o = 0;
      for (let d = 0; d < nd; d++) o += (starts[d] + idx[d]) * strides[d];
      data.set(block.data.subarray(i, i + run * w), o * w);
      for (let d = 1; d < nd; d++) {
        idx[d]++;
        if (idx[d] < block.shape[d]) break;
        idx[d] = 0;
      }
    }
  });
  return { data, shape: [...a.shape] };
}

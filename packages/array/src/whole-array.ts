import { blockRanges, columnMajorStrides, gridIndices, lengthOf } from './blocks.js';
import type { Collected } from './darray-options.js';
import { arrayOf, widthOf } from './dtype.js';
import type { Block } from './kernels.js';
import type { ArrayData } from './parts.js';

/** `collect()`: the whole of `a` on the caller, `{ data, shape }`, column-major. */
export async function collectArray(a: ArrayData): Promise<Collected> {
  // Read where each block lives, not taken home: a task's `fetch` moves its result to this
  // thread for good (its processor becomes the main thread), and the tasks of later
  // operations, which follow the blocks, would then all run here.
  const blocks = (await Promise.all(
    a.chunks.map((c) => c.fetch({ raw: true }).then((chunk) => chunk.fetch())),
  )) as Block[];
  return wholeArray(a, blocks);
}

/** `collect()`'s assembly: the whole of `a` on the caller from its fetched `blocks`, column-major. */
export function wholeArray(a: ArrayData, blocks: readonly Block[]): Collected {
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

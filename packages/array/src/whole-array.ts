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
    const src = block.data;
    const len = run * w;
    for (let i = 0; i < src.length; i += len) {
      let o = 0;
      for (let d = 0; d < nd; d++) o += (starts[d] + idx[d]) * strides[d];
      o *= w;
      // a short run element by element: a subarray per run (an object each) cost more than
      // the copy itself for small blocks (10³ blocks of a 100³ array: 10⁵ runs of 10)
      if (len < 64) for (let t = 0; t < len; t++) data[o + t] = src[i + t];
      else data.set(src.subarray(i, i + len), o);
      for (let d = 1; d < nd; d++) {
        idx[d]++;
        if (idx[d] < block.shape[d]) break;
        idx[d] = 0;
      }
    }
  });
  return { data, shape: [...a.shape] };
}

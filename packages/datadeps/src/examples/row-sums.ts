import { type Chunk, type DTask, spawn as defaultSpawn } from '@dtask/core';
import { In, Out } from '../annotations.js';
import { spawnDatadeps } from '../spawn-datadeps.js';
import type { StridedView } from '../strided-view.js';
import { view } from '../view.js';
import type { SpawnLike } from './cholesky.js';

/**
 * Seed 002's row-sum example: the matrix is split into row blocks (chunks or tasks holding
 * 2-D strided views of `rowsPerBlock × cols`, kept where they were made); one task per row
 * reads that row through `view(block, [j, j + 1], ':')` (sliced where the block is) and writes
 * its sum through `Out(view(sums, [r, r + 1]))`, a slice of an ordinary `Float64Array` on this
 * thread, which datadeps copies back when the task completes. Resolves to the row sums.
 */
export async function rowSums(
  blocks: (Chunk<StridedView<Float64Array>> | DTask<StridedView<Float64Array>>)[],
  rowsPerBlock: number,
  spawn: SpawnLike = defaultSpawn,
): Promise<Float64Array> {
  const sums = new Float64Array(blocks.length * rowsPerBlock);
  await spawnDatadeps(() => {
    for (let i = 0; i < blocks.length; i++) {
      for (let j = 0; j < rowsPerBlock; j++) {
        const r = i * rowsPerBlock + j;
        spawn(sumArrayRow, Out(view(sums, [r, r + 1])), In(view(blocks[i], [j, j + 1], ':')));
      }
    }
  });
  return sums;
}

/** `rowSum[0] = sum(x)` for a 1 × n strided view `x` (self-contained, travels as source). */
export function sumArrayRow(rowSum: Float64Array, x: StridedView<Float64Array>): void {
  let s = 0;
  const n = x.shape[1];
  for (let j = 0; j < n; j++) s += x.data[x.offset + j * x.strides[1]];
  rowSum[0] = s;
}

/**
 * Block `b` of the example's matrix: `rows × cols`, element `(i, j)` of the whole matrix being
 * `sin(row · cols + j)` (self-contained, travels as source; made where it runs).
 */
export function makeBlock(b: number, rows: number, cols: number): StridedView<Float64Array> {
  const data = new Float64Array(rows * cols);
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) data[i * cols + j] = Math.sin((b * rows + i) * cols + j);
  }
  return { data, shape: [rows, cols], strides: [cols, 1], offset: 0 };
}

// The demo's distributed-array step (@dtask/array): a random matrix made block by block where
// its blocks live, multiplied by a matrix of ones and summed, all as tasks per block. The
// product's sum must equal the side times the matrix's sum (each row of A·1 is a row sum of A),
// which checks the blocked product without building anything of full size on this thread.
import { Blocks, DArray } from '@dtask/array';
import type { Context } from '@dtask/core';

/** What the array step measured. */
export interface ArrayResult {
  /** Side of the square matrices. */
  n: number;
  /** Side of one block. */
  block: number;
  /** Blocks per matrix. */
  blocks: number;
  /** Sum of A·1, computed block by block. */
  productSum: number;
  /** |sum(A·1) − n·sum(A)| relative to n·sum(A): rounding only, about 1e-15. */
  relativeError: number;
  /** Processors that made A's blocks (from the chunk tasks). */
  processors: string[];
}

/** Multiplies an n×n random DArray in `block`² blocks by ones on `context` and checks the sum. */
export async function runArrayStep(
  context: Context,
  n: number,
  block: number,
): Promise<ArrayResult> {
  const blocks = new Blocks(block, block);
  const a = DArray.rand([n, n], blocks, { context, seed: 42 });
  const ones = DArray.ones([n, n], blocks, { context });
  const [productSum, sum] = await Promise.all([a.matmul(ones).sum(), a.sum()]);
  const expected = n * sum;
  const processors = new Set<string>();
  for (const chunk of a.chunks) if (chunk.processor) processors.add(chunk.processor.id);
  return {
    n,
    block,
    blocks: a.chunks.length,
    productSum,
    relativeError: Math.abs(productSum - expected) / Math.abs(expected),
    processors: [...processors].sort(),
  };
}

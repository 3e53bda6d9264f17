import { ArgumentError, type Context } from '@dtask/core';
import { cholesky as tiledCholesky } from '@dtask/datadeps/examples';
import { Blocks } from './blocks.js';
import type { DArray } from './darray.js';
import { distribute } from './distribute.js';

/** Options of `cholesky`. */
export interface CholeskyOptions {
  /** The context whose worker threads run the tile tasks; default: the array's spawn (default context). */
  context?: Context;
}

/**
 * The Cholesky factor `L` (`A = L·Lᵀ`, lower triangular) of a symmetric positive definite
 * Float64 `DArray` with square blocks that divide its side, computed by datadeps' tiled
 * `cholesky` (one task per tile operation, in place over a `SharedArrayBuffer`). Resolves to
 * `L` as a `DArray` with the same blocks.
 */
export async function cholesky(a: DArray, options: CholeskyOptions = {}): Promise<DArray> {
  const [n, m] = a.shape;
  const [b0, b1] = a.blocks.sizes;
  if (a.shape.length !== 2 || n !== m || b0 !== b1 || n % b0 !== 0 || a.dtype !== 'float64') {
    throw new ArgumentError(
      `cholesky(a): a must be a square float64 DArray with square blocks dividing its side; got [${a.shape.join(', ')}] in blocks (${a.blocks.sizes.join(', ')}) ${a.dtype}`,
    );
  }
  const { data } = await a.collect();
  const shared = new Float64Array(new SharedArrayBuffer(8 * n * n));
  shared.set(data);
  // Column-major: element (i, j) at i + j·n, so strides [1, n].
  const spawn = options.context ? options.context.spawn.bind(options.context) : undefined;
  await tiledCholesky({ data: shared, shape: [n, n], strides: [1, n], offset: 0 }, b0, spawn);
  for (let j = 1; j < n; j++) for (let i = 0; i < j; i++) shared[i + j * n] = 0;
  return distribute(shared, [n, n], new Blocks(b0, b0), { context: options.context });
}

// Kernels of `cholesky`: self-contained, so they travel to worker threads as source text.
import type { Block } from './kernels.js';

/**
 * The `n × n` matrix of `whole` (any dtype) as Float64 in a new `SharedArrayBuffer`, padded to
 * `side × side` with the identity (`[[A, 0], [0, I]]`, whose factor is `[[L, 0], [0, I]]`), so
 * tiles of any size divide it. Column-major: strides `[1, side]`.
 */
export function paddedMatrix(whole: Block, side: number): Block {
  const n = whole.shape[0];
  const data = new Float64Array(new SharedArrayBuffer(8 * side * side));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      data[i + j * side] = x[whole.offset + i * whole.strides[0] + j * whole.strides[1]];
    }
  }
  for (let i = n; i < side; i++) data[i + i * side] = 1;
  return { data, shape: [side, side], strides: [1, side], offset: 0 };
}

/** The lower triangle of the top-left `n × n` of `m` (zeros above the diagonal): a new block. */
export function lowerPart(m: Block, n: number): Block {
  const data = new Float64Array(new SharedArrayBuffer(8 * n * n));
  const x = m.data;
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) data[i + j * n] = x[m.offset + i * m.strides[0] + j * m.strides[1]];
  }
  return { data, shape: [n, n], strides: [1, n], offset: 0 };
}

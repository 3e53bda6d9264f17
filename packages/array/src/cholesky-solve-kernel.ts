// The kernel of `choleskySolve`: solving with a whole Cholesky factor. Self-contained, so it
// travels to worker threads and processes as source text.
import type { Block } from './kernels.js';

/**
 * `x = A⁻¹·b = L⁻ᵀ·L⁻¹·b` for each column of the block `b` (`n × w`, or a vector of `n`), with
 * `l` the whole lower triangular Cholesky factor (`A = L·Lᵀ`, only its lower triangle read):
 * forward then back substitution. A new Float64 block, shaped as `b`. Self-contained.
 */
export function choleskySolveBlock(l: Block, b: Block): Block {
  const n = l.shape[0];
  const vector = b.shape.length === 1;
  const w = vector ? 1 : b.shape[1];
  const bcs = vector ? 0 : b.strides[1];
  const [rs, cs] = l.strides;
  const d = l.data;
  const o = l.offset;
  const out = new Float64Array(new SharedArrayBuffer(8 * n * w));
  for (let c = 0; c < w; c++) {
    const y = out.subarray(c * n, (c + 1) * n);
    for (let i = 0; i < n; i++) y[i] = b.data[b.offset + i * b.strides[0] + c * bcs];
    // L·z = b, column by column
    for (let k = 0; k < n; k++) {
      const v = y[k] / d[o + k * rs + k * cs];
      y[k] = v;
      if (v === 0) continue;
      for (let i = k + 1; i < n; i++) y[i] -= d[o + i * rs + k * cs] * v;
    }
    // Lᵀ·x = z: row k of Lᵀ is column k of L
    for (let k = n - 1; k >= 0; k--) {
      let s = y[k];
      for (let i = k + 1; i < n; i++) s -= d[o + i * rs + k * cs] * y[i];
      y[k] = s / d[o + k * rs + k * cs];
    }
  }
  return {
    data: out,
    shape: vector ? [n] : [n, w],
    strides: vector ? [1] : [1, n],
    offset: 0,
  };
}

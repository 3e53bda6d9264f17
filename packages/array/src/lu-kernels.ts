// Kernels of `lu` around its tile operations: assembling the padded matrix, reading L, U, the
// permutation and the determinant out of the factored one, and solving with it. Self-contained,
// so they travel to worker threads and processes as source text.
import type { Block } from './kernels.js';

/**
 * The `m × n` matrix of `whole` (any dtype) as Float64 in a new `SharedArrayBuffer`, padded
 * with zeros to `rows × cols` (the identity on the diagonal past `max(m, n)`) and followed by
 * `extra` spare rows (LU's pivots live in the first): a `(rows + extra) × cols` column-major
 * block, strides `[1, rows + extra]`.
 */
export function paddedWithRows(whole: Block, rows: number, cols: number, extra: number): Block {
  const [m, n] = whole.shape;
  const ld = rows + extra;
  const data = new Float64Array(new SharedArrayBuffer(8 * ld * cols));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      data[i + j * ld] = x[whole.offset + i * whole.strides[0] + j * whole.strides[1]];
    }
  }
  for (let i = Math.max(m, n); i < Math.min(rows, cols); i++) data[i + i * ld] = 1;
  return { data, shape: [ld, cols], strides: [1, ld], offset: 0 };
}

/**
 * `L` (unit lower trapezoidal, `rows × cols`: ones on the diagonal, the factored matrix's
 * entries below it) or, with `upper`, `U` (`rows × cols`, its entries on and above the
 * diagonal) of the factored matrix `m`.
 */
export function luTriangle(m: Block, rows: number, cols: number, upper: boolean): Block {
  const data = new Float64Array(new SharedArrayBuffer(8 * rows * cols));
  const x = m.data;
  const [rs, cs] = m.strides;
  for (let j = 0; j < cols; j++) {
    const from = upper ? 0 : j + 1;
    const to = upper ? Math.min(j + 1, rows) : rows;
    for (let i = from; i < to; i++) data[i + j * rows] = x[m.offset + i * rs + j * cs];
    if (!upper && j < rows) data[j + j * rows] = 1;
  }
  return { data, shape: [rows, cols], strides: [1, rows], offset: 0 };
}

/** What `luSummary` reads out of a factored matrix. */
export interface LUSummary {
  /** The row permutation, 0-based: row `i` of `P·A` is row `p[i]` of `A`. */
  p: Int32Array;
  /** 0, or the 1-based index of the first exactly zero pivot (LAPACK's `info`). */
  info: number;
  /** The determinant: the product of `U`'s diagonal, negated for an odd permutation. */
  det: number;
}

/**
 * The permutation (of `rows`), `info` and determinant (of a square matrix; the product of the
 * pivots otherwise) of the factored matrix `m` after `steps` pivots, whose pivot rows
 * (absolute, as `getrf` records them) are in row `pivotRow`.
 */
export function luSummary(m: Block, rows: number, steps: number, pivotRow: number): LUSummary {
  const x = m.data;
  const [rs, cs] = m.strides;
  const p = new Int32Array(rows);
  for (let i = 0; i < rows; i++) p[i] = i;
  let det = 1;
  let info = 0;
  for (let j = 0; j < steps; j++) {
    const r = x[m.offset + pivotRow * rs + j * cs];
    if (r !== j) {
      const s = p[j];
      p[j] = p[r];
      p[r] = s;
      det = -det;
    }
    const u = x[m.offset + j * rs + j * cs];
    if (u === 0 && info === 0) info = j + 1;
    det *= u;
  }
  return { p, info, det };
}

/**
 * `x = A⁻¹·b` for each column of the block `b` (`n × w`, or a vector of `n`), with `A = Pᵀ·L·U`
 * factored in `m` and the permutation `p`: `b` permuted, then forward and back substitution.
 * A new block, shaped as `b`.
 */
export function luSolveBlock(m: Block, p: Int32Array, b: Block, n: number): Block {
  const w = b.shape.length > 1 ? b.shape[1] : 1;
  const bcs = b.shape.length > 1 ? b.strides[1] : 0;
  const out = new Float64Array(new SharedArrayBuffer(8 * n * w));
  const x = m.data;
  const [rs, cs] = m.strides;
  const o = m.offset;
  for (let c = 0; c < w; c++) {
    const y = out.subarray(c * n, (c + 1) * n);
    for (let i = 0; i < n; i++) y[i] = b.data[b.offset + p[i] * b.strides[0] + c * bcs];
    for (let k = 0; k < n; k++) {
      const v = y[k];
      if (v === 0) continue;
      const col = o + k * cs;
      for (let i = k + 1; i < n; i++) y[i] -= x[col + i * rs] * v;
    }
    for (let k = n - 1; k >= 0; k--) {
      const col = o + k * cs;
      const v = y[k] / x[col + k * rs];
      y[k] = v;
      if (v === 0) continue;
      for (let i = 0; i < k; i++) y[i] -= x[col + i * rs] * v;
    }
  }
  const shape = b.shape.length > 1 ? [n, w] : [n];
  return { data: out, shape, strides: b.shape.length > 1 ? [1, n] : [1], offset: 0 };
}

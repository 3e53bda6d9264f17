// Kernels of `lu` on complex matrices around its tile operations (lu-complex-tiles.ts):
// assembling the padded matrix (complex, held as a real one with twice the rows), reading L, U,
// the permutation and the determinant out of the factored one, and solving with it.
// Self-contained, so they travel to worker threads and processes as source text.
import type { Block } from './kernels.js';

/**
 * The complex `m × n` matrix of `whole` (complex128 or complex64) as complex Float64 pairs in a
 * new `SharedArrayBuffer`, padded with zeros to `rows × cols` complex (the identity on the
 * diagonal past `max(m, n)`) and followed by `extra` spare complex rows (the pivots live in the
 * first): a real `2(rows + extra) × cols` column-major block.
 */
export function paddedComplexWithRows(
  whole: Block,
  rows: number,
  cols: number,
  extra: number,
): Block {
  const [m, n] = whole.shape;
  const ld = 2 * (rows + extra);
  const data = new Float64Array(new SharedArrayBuffer(8 * ld * cols));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      const at = 2 * (whole.offset + i * whole.strides[0] + j * whole.strides[1]);
      data[2 * i + j * ld] = x[at];
      data[2 * i + 1 + j * ld] = x[at + 1];
    }
  }
  for (let i = Math.max(m, n); i < Math.min(rows, cols); i++) data[2 * i + i * ld] = 1;
  return { data, shape: [ld, cols], strides: [1, ld], offset: 0 };
}

/**
 * `L` (unit lower trapezoidal, `rows × cols`) or, with `upper`, `U` (on and above the
 * diagonal) of the factored complex matrix `m` (a real view of twice the rows): a new complex128
 * block (interleaved pairs, strides `[1, rows]`).
 */
export function luTriangleComplex(m: Block, rows: number, cols: number, upper: boolean): Block {
  const data = new Float64Array(new SharedArrayBuffer(16 * rows * cols));
  const x = m.data;
  const [rs, cs] = m.strides;
  for (let j = 0; j < cols; j++) {
    const from = upper ? 0 : j + 1;
    const to = upper ? Math.min(j + 1, rows) : rows;
    for (let i = from; i < to; i++) {
      data[2 * (i + j * rows)] = x[m.offset + 2 * i * rs + j * cs];
      data[2 * (i + j * rows) + 1] = x[m.offset + (2 * i + 1) * rs + j * cs];
    }
    if (!upper && j < rows) data[2 * (j + j * rows)] = 1;
  }
  return { data, shape: [rows, cols], strides: [1, rows], offset: 0 };
}

/** What `luSummaryComplex` reads out of a factored complex matrix. */
export interface ComplexLUSummary {
  /** The row permutation, 0-based: row `i` of `P·A` is row `p[i]` of `A`. */
  p: Int32Array;
  /** 0, or the 1-based index of the first exactly zero pivot (LAPACK's `info`). */
  info: number;
  /** The determinant's real part: the product of `U`'s diagonal, negated for an odd permutation. */
  det: number;
  /** The determinant's imaginary part. */
  detIm: number;
}

/**
 * The permutation (of `rows`), `info` and determinant of the factored complex matrix `m` after
 * `steps` pivots, whose pivot rows (absolute) are in the real parts of complex row `pivotRow`.
 */
export function luSummaryComplex(
  m: Block,
  rows: number,
  steps: number,
  pivotRow: number,
): ComplexLUSummary {
  const x = m.data;
  const [rs, cs] = m.strides;
  const p = new Int32Array(rows);
  for (let i = 0; i < rows; i++) p[i] = i;
  let dr = 1;
  let di = 0;
  let info = 0;
  for (let j = 0; j < steps; j++) {
    const r = x[m.offset + 2 * pivotRow * rs + j * cs];
    if (r !== j) {
      const s = p[j];
      p[j] = p[r];
      p[r] = s;
      dr = -dr;
      di = -di;
    }
    const ur = x[m.offset + 2 * j * rs + j * cs];
    const ui = x[m.offset + (2 * j + 1) * rs + j * cs];
    if (ur === 0 && ui === 0 && info === 0) info = j + 1;
    const t = dr * ur - di * ui;
    di = dr * ui + di * ur;
    dr = t;
  }
  return { p, info, det: dr, detIm: di };
}

/**
 * `x = A⁻¹·b` for each column of the block `b` (`n × w`, or a vector of `n`; complex when
 * `bComplex`, else real), with the complex `A = Pᵀ·L·U` factored in `m` and the permutation
 * `p`: `b` permuted, then forward and back substitution. A new complex128 block shaped as `b`.
 */
export function luSolveBlockComplex(
  m: Block,
  p: Int32Array,
  b: Block,
  n: number,
  bComplex: boolean,
): Block {
  const w = b.shape.length > 1 ? b.shape[1] : 1;
  const bcs = b.shape.length > 1 ? b.strides[1] : 0;
  const out = new Float64Array(new SharedArrayBuffer(16 * n * w));
  const x = m.data;
  const [rs, cs] = m.strides;
  const o = m.offset;
  for (let c = 0; c < w; c++) {
    const y = out.subarray(2 * c * n, 2 * (c + 1) * n);
    for (let i = 0; i < n; i++) {
      const at = b.offset + p[i] * b.strides[0] + c * bcs;
      y[2 * i] = bComplex ? b.data[2 * at] : b.data[at];
      y[2 * i + 1] = bComplex ? b.data[2 * at + 1] : 0;
    }
    for (let k = 0; k < n; k++) {
      const vr = y[2 * k];
      const vi = y[2 * k + 1];
      if (vr === 0 && vi === 0) continue;
      const col = o + k * cs;
      for (let i = k + 1; i < n; i++) {
        const lr = x[col + 2 * i * rs];
        const li = x[col + (2 * i + 1) * rs];
        y[2 * i] -= lr * vr - li * vi;
        y[2 * i + 1] -= lr * vi + li * vr;
      }
    }
    for (let k = n - 1; k >= 0; k--) {
      const col = o + k * cs;
      const ur = x[col + 2 * k * rs];
      const ui = x[col + (2 * k + 1) * rs];
      const q = ur * ur + ui * ui;
      const yr = y[2 * k];
      const yi = y[2 * k + 1];
      const vr = (yr * ur + yi * ui) / q;
      const vi = (yi * ur - yr * ui) / q;
      y[2 * k] = vr;
      y[2 * k + 1] = vi;
      if (vr === 0 && vi === 0) continue;
      for (let i = 0; i < k; i++) {
        const ar = x[col + 2 * i * rs];
        const ai = x[col + (2 * i + 1) * rs];
        y[2 * i] -= ar * vr - ai * vi;
        y[2 * i + 1] -= ar * vi + ai * vr;
      }
    }
  }
  const shape = b.shape.length > 1 ? [n, w] : [n];
  return { data: out, shape, strides: b.shape.length > 1 ? [1, n] : [1], offset: 0 };
}

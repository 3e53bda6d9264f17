// Kernels of `qr` around its tile operations: assembling the padded matrix (with room for each
// panel's T and for Q), reading Q and R out of it, and least-squares solving with it.
// Self-contained, so they travel to worker threads and processes as source text.
import type { Block } from './kernels.js';

/** Where the parts of `qr`'s working matrix lie (all multiples of the tile `t`). */
export interface QRLayout {
  /** The matrix's rows and columns, and `k = min(m, n)`. */
  m: number;
  n: number;
  k: number;
  /** The tile. */
  t: number;
  /** Rows and columns of the padded matrix, and the padded width of `Q`. */
  mp: number;
  np: number;
  kp: number;
  /** CAQR only: tile rows `mp / t`, domains, and the steps (`caqrSteps`, flat). */
  mt?: number;
  p?: number;
  steps?: number[];
}

/**
 * `whole` (`m × n`, any dtype) as Float64 in a new `SharedArrayBuffer`, zero-padded to
 * `mp × np`, then `t` spare rows (each panel's T) and `kp` columns holding `[I; 0]` (`m × k`
 * identity, becoming `Q`): a `(mp + t) × (np + kp)` column-major block.
 */
export function qrWorkMatrix(whole: Block, layout: QRLayout): Block {
  const { m, n, k, t, mp, np, kp } = layout;
  const ld = mp + t;
  const data = new Float64Array(new SharedArrayBuffer(8 * ld * (np + kp)));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      data[i + j * ld] = x[whole.offset + i * whole.strides[0] + j * whole.strides[1]];
    }
  }
  for (let i = 0; i < k; i++) data[i + (np + i) * ld] = 1;
  return { data, shape: [ld, np + kp], strides: [1, ld], offset: 0 };
}

/**
 * A new `rows × cols` block copied from `w` at `(0, column)`; with `upper`, only the elements
 * on and above the diagonal (`R`), the rest zero.
 */
export function qrPart(
  w: Block,
  rows: number,
  cols: number,
  column: number,
  upper: boolean,
): Block {
  const data = new Float64Array(new SharedArrayBuffer(8 * rows * cols));
  const [rs, cs] = w.strides;
  for (let j = 0; j < cols; j++) {
    const to = upper ? Math.min(j + 1, rows) : rows;
    const col = w.offset + (column + j) * cs;
    for (let i = 0; i < to; i++) data[i + j * rows] = w.data[col + i * rs];
  }
  return { data, shape: [rows, cols], strides: [1, rows], offset: 0 };
}

/** 0, or the 1-based index of the first exactly zero diagonal element of `R` (`k` of them). */
export function qrRankInfo(w: Block, k: number): number {
  for (let j = 0; j < k; j++) {
    if (w.data[w.offset + j * (w.strides[0] + w.strides[1])] === 0) return j + 1;
  }
  return 0;
}

/**
 * The least-squares `x` (`n × w`, or a vector of `n`) minimizing `‖A·x − b‖` for each column
 * of `b` (`m` rows, `m ≥ n`), with `A = Q·R` factored in `wm`: `Qᵀ·b` by the panels' block
 * reflectors in turn, then back substitution with `R`. A new block.
 */
export function qrSolveBlock(wm: Block, b: Block, layout: QRLayout): Block {
  const { m, n, t, mp, np } = layout;
  const wcols = b.shape.length > 1 ? b.shape[1] : 1;
  const bcs = b.shape.length > 1 ? b.strides[1] : 0;
  const d = wm.data;
  const [rs, cs] = wm.strides;
  const o = wm.offset;
  const y = new Float64Array(mp * wcols);
  for (let c = 0; c < wcols; c++)
    for (let i = 0; i < m; i++) y[i + c * mp] = b.data[b.offset + i * b.strides[0] + c * bcs];
  const panels = Math.min(mp, np) / t;
  const z = new Float64Array(t);
  for (let k = 0; k < panels; k++) {
    const r0 = k * t;
    const tr = o + mp * rs; // T's rows
    for (let c = 0; c < wcols; c++) {
      const yc = c * mp;
      // z = Vᵀ·y; z ← Tᵀ·z; y −= V·z
      for (let j = 0; j < t; j++) {
        const col = o + (r0 + j) * cs;
        let s = y[yc + r0 + j];
        for (let i = r0 + j + 1; i < mp; i++) s += d[col + i * rs] * y[yc + i];
        z[j] = s;
      }
      for (let j = t - 1; j >= 0; j--) {
        let s = 0;
        for (let i = 0; i <= j; i++) s += d[tr + i * rs + (r0 + j) * cs] * z[i];
        z[j] = s;
      }
      for (let j = 0; j < t; j++) {
        const col = o + (r0 + j) * cs;
        const v = z[j];
        y[yc + r0 + j] -= v;
        for (let i = r0 + j + 1; i < mp; i++) y[yc + i] -= d[col + i * rs] * v;
      }
    }
  }
  const out = new Float64Array(new SharedArrayBuffer(8 * n * wcols));
  for (let c = 0; c < wcols; c++) {
    for (let i = n - 1; i >= 0; i--) {
      let s = y[i + c * mp];
      for (let j = i + 1; j < n; j++) s -= d[o + i * rs + j * cs] * out[j + c * n];
      out[i + c * n] = s / d[o + i * rs + i * cs];
    }
  }
  const shape = b.shape.length > 1 ? [n, wcols] : [n];
  return { data: out, shape, strides: b.shape.length > 1 ? [1, n] : [1], offset: 0 };
}

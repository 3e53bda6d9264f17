// Kernels of `qr` on complex matrices around its tile operations (qr-complex-tiles.ts):
// assembling the padded working matrix (complex, held as a real one with twice the rows),
// reading Q and R out of it, and least-squares solving with it. Self-contained, so they travel
// to worker threads and processes as source text.
import type { Block } from './kernels.js';
import type { QRLayout } from './qr-kernels.js';

/**
 * `whole` (complex `m × n`) as complex Float64 pairs in a new `SharedArrayBuffer`, zero-padded
 * to `mp × np`, then `t` spare complex rows (each panel's T) and `kp` columns holding `[I; 0]`
 * (becoming `Q`): a real `2(mp + t) × (np + kp)` column-major block.
 */
export function qrWorkMatrixComplex(whole: Block, layout: QRLayout): Block {
  const { m, n, k, t, mp, np, kp } = layout;
  const ld = 2 * (mp + t);
  const data = new Float64Array(new SharedArrayBuffer(8 * ld * (np + kp)));
  const x = whole.data;
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      const at = 2 * (whole.offset + i * whole.strides[0] + j * whole.strides[1]);
      data[2 * i + j * ld] = x[at];
      data[2 * i + 1 + j * ld] = x[at + 1];
    }
  }
  for (let i = 0; i < k; i++) data[2 * i + (np + i) * ld] = 1;
  return { data, shape: [ld, np + kp], strides: [1, ld], offset: 0 };
}

/**
 * A new complex128 `rows × cols` block copied from the complex working matrix `w` at
 * `(0, column)`; with `upper`, only the elements on and above the diagonal (`R`).
 */
export function qrPartComplex(
  w: Block,
  rows: number,
  cols: number,
  column: number,
  upper: boolean,
): Block {
  const data = new Float64Array(new SharedArrayBuffer(16 * rows * cols));
  const [rs, cs] = w.strides;
  for (let j = 0; j < cols; j++) {
    const to = upper ? Math.min(j + 1, rows) : rows;
    const col = w.offset + (column + j) * cs;
    for (let i = 0; i < to; i++) {
      data[2 * (i + j * rows)] = w.data[col + 2 * i * rs];
      data[2 * (i + j * rows) + 1] = w.data[col + (2 * i + 1) * rs];
    }
  }
  return { data, shape: [rows, cols], strides: [1, rows], offset: 0 };
}

/** 0, or the 1-based index of the first exactly zero diagonal element of the complex `R`. */
export function qrRankInfoComplex(w: Block, k: number): number {
  const [rs, cs] = w.strides;
  for (let j = 0; j < k; j++) {
    const at = w.offset + 2 * j * rs + j * cs;
    if (w.data[at] === 0 && w.data[at + rs] === 0) return j + 1;
  }
  return 0;
}

/**
 * The least-squares `x` (`n × w`, or a vector of `n`) minimizing `‖A·x − b‖` for each column of
 * `b` (`m` rows, `m ≥ n`; complex when `bComplex`), with the complex `A = Q·R` factored in `wm`:
 * `Qᴴ·b` by the panels' block reflectors in turn, then back substitution with `R`. A new
 * complex128 block.
 */
export function qrSolveBlockComplex(
  wm: Block,
  b: Block,
  layout: QRLayout,
  bComplex: boolean,
): Block {
  const { m, n, t, mp, np } = layout;
  const wcols = b.shape.length > 1 ? b.shape[1] : 1;
  const bcs = b.shape.length > 1 ? b.strides[1] : 0;
  const d = wm.data;
  const [rs, cs] = wm.strides;
  const o = wm.offset;
  const at = (i: number, j: number) => o + 2 * i * rs + j * cs;
  const y = new Float64Array(2 * mp * wcols);
  for (let c = 0; c < wcols; c++)
    for (let i = 0; i < m; i++) {
      const src = b.offset + i * b.strides[0] + c * bcs;
      y[2 * (i + c * mp)] = bComplex ? b.data[2 * src] : b.data[src];
      y[2 * (i + c * mp) + 1] = bComplex ? b.data[2 * src + 1] : 0;
    }
  const panels = Math.min(mp, np) / t;
  const zr = new Float64Array(t);
  const zi = new Float64Array(t);
  for (let k = 0; k < panels; k++) {
    const r0 = k * t;
    for (let c = 0; c < wcols; c++) {
      const yc = 2 * c * mp;
      // z = Vᴴ·y; z ← Tᴴ·z; y −= V·z
      for (let j = 0; j < t; j++) {
        let pr = y[yc + 2 * (r0 + j)];
        let pi = y[yc + 2 * (r0 + j) + 1];
        for (let i = r0 + j + 1; i < mp; i++) {
          const vr = d[at(i, r0 + j)];
          const vi = d[at(i, r0 + j) + rs];
          pr += vr * y[yc + 2 * i] + vi * y[yc + 2 * i + 1];
          pi += vr * y[yc + 2 * i + 1] - vi * y[yc + 2 * i];
        }
        zr[j] = pr;
        zi[j] = pi;
      }
      for (let j = t - 1; j >= 0; j--) {
        let pr = 0;
        let pi = 0;
        for (let i = 0; i <= j; i++) {
          // conj(T[i, j]), T in the spare rows mp …
          const xr = d[at(mp + i, r0 + j)];
          const xi = -d[at(mp + i, r0 + j) + rs];
          pr += xr * zr[i] - xi * zi[i];
          pi += xr * zi[i] + xi * zr[i];
        }
        zr[j] = pr;
        zi[j] = pi;
      }
      for (let j = 0; j < t; j++) {
        const [sr, si] = [zr[j], zi[j]];
        y[yc + 2 * (r0 + j)] -= sr;
        y[yc + 2 * (r0 + j) + 1] -= si;
        for (let i = r0 + j + 1; i < mp; i++) {
          const vr = d[at(i, r0 + j)];
          const vi = d[at(i, r0 + j) + rs];
          y[yc + 2 * i] -= vr * sr - vi * si;
          y[yc + 2 * i + 1] -= vr * si + vi * sr;
        }
      }
    }
  }
  const out = new Float64Array(new SharedArrayBuffer(16 * n * wcols));
  for (let c = 0; c < wcols; c++) {
    for (let i = n - 1; i >= 0; i--) {
      let sr = y[2 * (i + c * mp)];
      let si = y[2 * (i + c * mp) + 1];
      for (let j = i + 1; j < n; j++) {
        const rr = d[at(i, j)];
        const ri = d[at(i, j) + rs];
        const xr = out[2 * (j + c * n)];
        const xi = out[2 * (j + c * n) + 1];
        sr -= rr * xr - ri * xi;
        si -= rr * xi + ri * xr;
      }
      const dr = d[at(i, i)];
      const di = d[at(i, i) + rs];
      const q = dr * dr + di * di;
      out[2 * (i + c * n)] = (sr * dr + si * di) / q;
      out[2 * (i + c * n) + 1] = (si * dr - sr * di) / q;
    }
  }
  const shape = b.shape.length > 1 ? [n, wcols] : [n];
  return { data: out, shape, strides: b.shape.length > 1 ? [1, n] : [1], offset: 0 };
}

/**
 * `Q·b`, `Qᴴ·b` (`right` false: `b` has `A`'s `m` rows) or `b·Q`, `b·Qᴴ` (`right` true: `b` has
 * `m` columns; complex when `bComplex`) as a new complex128 block shaped as `b`, with `Q` the full
 * `m × m` unitary factor of the complex `A = Q·R` held in `wm` as each panel's reflectors `V`
 * and compact WY factor `T`: `Q = H₀·H₁·…`, `Hₚ = I − Vₚ·Tₚ·Vₚᴴ` (zunmqr). A right product is
 * the conjugate transpose of a left one: `b·Q = (Qᴴ·bᴴ)ᴴ`.
 */
export function qrApplyBlockComplex(
  wm: Block,
  b: Block,
  layout: QRLayout,
  adjoint: boolean,
  right: boolean,
  bComplex: boolean,
): Block {
  const { m, t, mp, np } = layout;
  const vector = b.shape.length === 1;
  const rows = b.shape[0];
  const cols = vector ? 1 : b.shape[1];
  const [brs, bcs] = [b.strides[0], vector ? 0 : b.strides[1]];
  // y (mp × w, complex) holds b (left) or bᴴ (right), zero-padded below row m.
  const w = right ? rows : cols;
  const y = new Float64Array(2 * mp * w);
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      const at = right ? b.offset + c * brs + i * bcs : b.offset + i * brs + c * bcs;
      const re = bComplex ? b.data[2 * at] : b.data[at];
      const im = bComplex ? b.data[2 * at + 1] : 0;
      y[2 * (i + c * mp)] = re;
      y[2 * (i + c * mp) + 1] = right ? -im : im;
    }
  // Q·y applies the H's last to first with T; Qᴴ·y first to last with Tᴴ. (b·Q)ᴴ = Qᴴ·bᴴ.
  const adjointT = right ? !adjoint : adjoint;
  const d = wm.data;
  const [rs, cs] = wm.strides;
  const at = (i: number, j: number) => wm.offset + 2 * i * rs + j * cs;
  const panels = Math.min(mp, np) / t;
  const zr = new Float64Array(t);
  const zi = new Float64Array(t);
  for (let step = 0; step < panels; step++) {
    const k = adjointT ? step : panels - 1 - step;
    const r0 = k * t;
    for (let c = 0; c < w; c++) {
      const yc = 2 * c * mp;
      // z = Vᴴ·y
      for (let j = 0; j < t; j++) {
        let pr = y[yc + 2 * (r0 + j)];
        let pi = y[yc + 2 * (r0 + j) + 1];
        for (let i = r0 + j + 1; i < mp; i++) {
          const vr = d[at(i, r0 + j)];
          const vi = d[at(i, r0 + j) + rs];
          pr += vr * y[yc + 2 * i] + vi * y[yc + 2 * i + 1];
          pi += vr * y[yc + 2 * i + 1] - vi * y[yc + 2 * i];
        }
        zr[j] = pr;
        zi[j] = pi;
      }
      if (adjointT) {
        // z ← Tᴴ·z
        for (let j = t - 1; j >= 0; j--) {
          let pr = 0;
          let pi = 0;
          for (let i = 0; i <= j; i++) {
            const xr = d[at(mp + i, r0 + j)];
            const xi = -d[at(mp + i, r0 + j) + rs];
            pr += xr * zr[i] - xi * zi[i];
            pi += xr * zi[i] + xi * zr[i];
          }
          zr[j] = pr;
          zi[j] = pi;
        }
      } else {
        // z ← T·z
        for (let i = 0; i < t; i++) {
          let pr = 0;
          let pi = 0;
          for (let j = i; j < t; j++) {
            const xr = d[at(mp + i, r0 + j)];
            const xi = d[at(mp + i, r0 + j) + rs];
            pr += xr * zr[j] - xi * zi[j];
            pi += xr * zi[j] + xi * zr[j];
          }
          zr[i] = pr;
          zi[i] = pi;
        }
      }
      // y −= V·z
      for (let j = 0; j < t; j++) {
        const [sr, si] = [zr[j], zi[j]];
        y[yc + 2 * (r0 + j)] -= sr;
        y[yc + 2 * (r0 + j) + 1] -= si;
        for (let i = r0 + j + 1; i < mp; i++) {
          const vr = d[at(i, r0 + j)];
          const vi = d[at(i, r0 + j) + rs];
          y[yc + 2 * i] -= vr * sr - vi * si;
          y[yc + 2 * i + 1] -= vr * si + vi * sr;
        }
      }
    }
  }
  const out = new Float64Array(new SharedArrayBuffer(16 * rows * cols));
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      const to = right ? c + i * rows : i + c * rows;
      out[2 * to] = y[2 * (i + c * mp)];
      out[2 * to + 1] = right ? -y[2 * (i + c * mp) + 1] : y[2 * (i + c * mp) + 1];
    }
  return {
    data: out,
    shape: vector ? [rows] : [rows, cols],
    strides: vector ? [1] : [1, rows],
    offset: 0,
  };
}

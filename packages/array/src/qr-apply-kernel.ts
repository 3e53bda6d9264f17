// The kernel that multiplies a block by `qr`'s `Q` (or `Qᵀ`) from either side, through the
// panels' block reflectors kept in the working matrix (LAPACK's `ormqr`). Self-contained, so it
// travels to worker threads and processes as source text.
import type { Block } from './kernels.js';
import type { QRLayout } from './qr-kernels.js';

/**
 * `Q·b`, `Qᵀ·b` (`right` false: `b` has `A`'s `m` rows, any columns) or `b·Q`, `b·Qᵀ` (`right`
 * true: `b` has `m` columns) as a new block shaped as `b`, with `Q` the full `m × m` orthogonal
 * factor of `A = Q·R` held in `wm` as each panel's reflectors `V` (below its diagonal) and
 * compact WY factor `T` (in the spare rows): `Q = H₀·H₁·…`, `Hₚ = I − Vₚ·Tₚ·Vₚᵀ`. A right
 * product is the transpose of the left one with the other transposition.
 */
export function qrApplyBlock(
  wm: Block,
  b: Block,
  layout: QRLayout,
  adjoint: boolean,
  right: boolean,
): Block {
  const { m, t, mp, np } = layout;
  const vector = b.shape.length === 1;
  const rows = vector ? b.shape[0] : b.shape[0];
  const cols = vector ? 1 : b.shape[1];
  const [brs, bcs] = [b.strides[0], vector ? 0 : b.strides[1]];
  // y (mp × w) holds b (left) or bᵀ (right), zero-padded below row m.
  const w = right ? rows : cols;
  const y = new Float64Array(mp * w);
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      const at = right ? b.offset + c * brs + i * bcs : b.offset + i * brs + c * bcs;
      y[i + c * mp] = b.data[at];
    }
  // Left Q·y applies H's last to first with T; Qᵀ·y first to last with Tᵀ. (b·Q)ᵀ = Qᵀ·bᵀ.
  const transposeT = right ? !adjoint : adjoint;
  const d = wm.data;
  const [rs, cs] = wm.strides;
  const o = wm.offset;
  const tr = o + mp * rs;
  const panels = Math.min(mp, np) / t;
  const z = new Float64Array(t);
  for (let step = 0; step < panels; step++) {
    const k = transposeT ? step : panels - 1 - step;
    const r0 = k * t;
    for (let c = 0; c < w; c++) {
      const yc = c * mp;
      for (let j = 0; j < t; j++) {
        const col = o + (r0 + j) * cs;
        let s = y[yc + r0 + j];
        for (let i = r0 + j + 1; i < mp; i++) s += d[col + i * rs] * y[yc + i];
        z[j] = s;
      }
      if (transposeT) {
        for (let j = t - 1; j >= 0; j--) {
          let s = 0;
          for (let i = 0; i <= j; i++) s += d[tr + i * rs + (r0 + j) * cs] * z[i];
          z[j] = s;
        }
      } else {
        for (let i = 0; i < t; i++) {
          let s = 0;
          for (let j = i; j < t; j++) s += d[tr + i * rs + (r0 + j) * cs] * z[j];
          z[i] = s;
        }
      }
      for (let j = 0; j < t; j++) {
        const col = o + (r0 + j) * cs;
        const v = z[j];
        y[yc + r0 + j] -= v;
        for (let i = r0 + j + 1; i < mp; i++) y[yc + i] -= d[col + i * rs] * v;
      }
    }
  }
  const out = new Float64Array(new SharedArrayBuffer(8 * rows * cols));
  for (let c = 0; c < w; c++)
    for (let i = 0; i < m; i++) {
      if (right) out[c + i * rows] = y[i + c * mp];
      else out[i + c * rows] = y[i + c * mp];
    }
  return {
    data: out,
    shape: vector ? [rows] : [rows, cols],
    strides: vector ? [1] : [1, rows],
    offset: 0,
  };
}

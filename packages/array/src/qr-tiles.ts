// The QR tile operations on 2-D Float64 strided views, in place: LAPACK's geqrt on a column
// panel (Householder reflectors and the triangular factor T of their compact WY form,
// `H = I − V·T·Vᵀ`) and larfb (a panel's block reflector applied to another column block).
// Their products run as the SIMD gemm (simd-install.ts), or plain JavaScript loops where the
// runtime has none (or DTASK_ARRAY_KERNELS=js). Self-contained: the shared helpers are spliced
// into each kernel's source (kernel-link.ts), so they travel to worker threads and processes.
import type { StridedView } from '@dtask/datadeps';
import { linkKernel } from './kernel-link.js';
import type { installSimd, Operand, SimdKernels } from './simd-install.js';

type Tile = StridedView<Float64Array>;

declare const __DTASK_SIMD__: typeof installSimd;
declare const __DTASK_LINK_larfb__: typeof larfbCore;
declare const __DTASK_LINK_gemm__: typeof gemmCore;

/** `c ← beta·c + alpha·a·b` (`m × k` by `k × n`): the SIMD gemm, or plain loops without it. */
function gemmCore(
  simd: SimdKernels | null,
  m: number,
  n: number,
  k: number,
  a: Operand,
  b: Operand,
  alpha: number,
  beta: number,
  c: Operand,
): void {
  if (m === 0 || n === 0) return;
  if (simd !== null && k > 0) {
    simd.gemm(false, m, n, [[a, b, k]], alpha, beta, c);
    return;
  }
  const [ad, ao, ars, acs] = a;
  const [bd, bo, brs, bcs] = b;
  const [cd, co, crs, ccs] = c;
  for (let j = 0; j < n; j++) {
    const cc = co + j * ccs;
    if (beta !== 1) for (let i = 0; i < m; i++) cd[cc + i * crs] *= beta;
    for (let p = 0; p < k; p++) {
      const x = alpha * bd[bo + p * brs + j * bcs];
      if (x === 0) continue;
      const ca = ao + p * acs;
      for (let i = 0; i < m; i++) cd[cc + i * crs] += ad[ca + i * ars] * x;
    }
  }
}

/**
 * `c ← (I − V·T·Vᵀ)·c`, or with `transpose` `c ← (I − V·T·Vᵀ)ᵀ·c`, for the `m × t` panel `v`
 * (reflectors below its diagonal, unit diagonal implied, what is above ignored), the upper
 * triangular `t × t` `tm` and the `m × w` block `c`: three gemms on dense copies of V and T.
 */
function larfbCore(simd: SimdKernels | null, v: Tile, tm: Tile, c: Tile, transpose: boolean): void {
  const gemm = __DTASK_LINK_gemm__;
  const m = v.shape[0];
  const t = v.shape[1];
  const w = c.shape[1];
  if (w === 0 || m === 0) return;
  const vd = new Float64Array(m * t);
  for (let j = 0; j < t; j++) {
    vd[j + j * m] = 1;
    const col = v.offset + j * v.strides[1];
    for (let i = j + 1; i < m; i++) vd[i + j * m] = v.data[col + i * v.strides[0]];
  }
  const td = new Float64Array(t * t);
  for (let j = 0; j < t; j++)
    for (let i = 0; i <= j; i++)
      td[i + j * t] = tm.data[tm.offset + i * tm.strides[0] + j * tm.strides[1]];
  const cop: Operand = [c.data, c.offset, c.strides[0], c.strides[1]];
  const w1 = new Float64Array(t * w);
  const w2 = new Float64Array(t * w);
  // W = Vᵀ·C; W ← T·W or Tᵀ·W; C −= V·W
  gemm(simd, t, w, m, [vd, 0, m, 1], cop, 1, 0, [w1, 0, 1, t]);
  gemm(simd, t, w, t, transpose ? [td, 0, t, 1] : [td, 0, 1, t], [w1, 0, 1, t], 1, 0, [
    w2,
    0,
    1,
    t,
  ]);
  gemm(simd, m, w, t, [vd, 0, 1, m], [w2, 0, 1, t], -1, 1, cop);
}

/**
 * LAPACK's `geqrt` on an `m × t` column panel (`m ≥ t`), in place: `R` on and above the
 * diagonal, the Householder vectors below it (`v[j] = 1` implied; LAPACK's `larfg`: `τ = 0`
 * where the column below the diagonal is already zero), and the upper triangular `T` of their
 * compact WY form written into `tm` (`t × t`, zeros below its diagonal). Blocked by 32
 * columns: each block is reduced column by column, then applied to the panel's columns right
 * of it as one block reflector.
 */
function geqrtTile(a: Tile, tm: Tile): void {
  const simd = __DTASK_SIMD__();
  const larfb = __DTASK_LINK_larfb__;
  const NB = 32;
  const d = a.data;
  const o = a.offset;
  const [rs, cs] = a.strides;
  const m = a.shape[0];
  const t = a.shape[1];
  const tau = new Float64Array(t);
  for (let j0 = 0; j0 < t; j0 += NB) {
    const j1 = Math.min(t, j0 + NB);
    for (let j = j0; j < j1; j++) {
      const cj = o + j * cs;
      const alpha = d[cj + j * rs];
      let sigma = 0;
      for (let i = j + 1; i < m; i++) sigma += d[cj + i * rs] * d[cj + i * rs];
      if (sigma === 0) {
        tau[j] = 0;
        continue;
      }
      const norm = Math.sqrt(alpha * alpha + sigma);
      const beta = alpha >= 0 ? -norm : norm;
      tau[j] = (beta - alpha) / beta;
      const scale = 1 / (alpha - beta);
      for (let i = j + 1; i < m; i++) d[cj + i * rs] *= scale;
      d[cj + j * rs] = beta;
      // The block's later columns ← H_j · them.
      for (let c = j + 1; c < j1; c++) {
        const cc = o + c * cs;
        let s = d[cc + j * rs];
        for (let i = j + 1; i < m; i++) s += d[cj + i * rs] * d[cc + i * rs];
        s *= tau[j];
        d[cc + j * rs] -= s;
        for (let i = j + 1; i < m; i++) d[cc + i * rs] -= s * d[cj + i * rs];
      }
    }
    // T of the whole panel so far, forward and column by column (LAPACK's larft):
    // T[0 … j, j] = −τ_j · T[0 … j, 0 … j] · V[:, 0 … j]ᵀ · v_j.
    for (let j = j0; j < j1; j++) {
      const z = new Float64Array(j);
      const cj = o + j * cs;
      for (let l = 0; l < j; l++) {
        const cl = o + l * cs;
        let s = d[cl + j * rs];
        for (let i = j + 1; i < m; i++) s += d[cl + i * rs] * d[cj + i * rs];
        z[l] = s;
      }
      const tc = tm.offset + j * tm.strides[1];
      for (let i = 0; i < j; i++) {
        let s = 0;
        for (let l = i; l < j; l++)
          s += tm.data[tm.offset + i * tm.strides[0] + l * tm.strides[1]] * z[l];
        tm.data[tc + i * tm.strides[0]] = -tau[j] * s;
      }
      tm.data[tc + j * tm.strides[0]] = tau[j];
      for (let i = j + 1; i < t; i++) tm.data[tc + i * tm.strides[0]] = 0;
    }
    if (j1 < t) {
      // The panel's columns right of the block ← (I − V·T·Vᵀ)ᵀ · them, with this block's V, T.
      const v = {
        data: d,
        shape: [m - j0, j1 - j0],
        strides: [rs, cs],
        offset: o + j0 * rs + j0 * cs,
      };
      const tb = {
        data: tm.data,
        shape: [j1 - j0, j1 - j0],
        strides: tm.strides,
        offset: tm.offset + j0 * tm.strides[0] + j0 * tm.strides[1],
      };
      const c = {
        data: d,
        shape: [m - j0, t - j1],
        strides: [rs, cs],
        offset: o + j0 * rs + j1 * cs,
      };
      larfb(simd, v, tb, c, true);
    }
  }
}

/**
 * `c ← Hᵀ·c` (with `transpose`, the factorization's update) or `c ← H·c` (forming `Q`), `H`
 * the block reflector of the panel `v` and its `T` `tm`.
 */
function larfbTile(v: Tile, tm: Tile, c: Tile, transpose: boolean): void {
  __DTASK_LINK_larfb__(__DTASK_SIMD__(), v, tm, c, transpose);
}

// Each is named as @dtask/array/kernels exports it: a built name must match its export.
// The parts splice in order: larfb's source brings a __DTASK_LINK_gemm__ that gemm then fills.
const parts = { larfb: larfbCore, gemm: gemmCore };
/**
 * LAPACK's `geqrt` on an `m × t` column panel (`m ≥ t`), in place: `R` and the Householder
 * vectors, and `T` (`t × t`) of their compact WY form.
 */
export const geqrt: (a: Tile, tm: Tile) => void = linkKernel(geqrtTile, 'geqrt', parts);
/** LAPACK's `larfb`: a panel's block reflector `H = I − V·T·Vᵀ` (or `Hᵀ`) applied to `c`. */
export const larfb: (v: Tile, tm: Tile, c: Tile, transpose: boolean) => void = linkKernel(
  larfbTile,
  'larfb',
  parts,
);

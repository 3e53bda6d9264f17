// The LU tile operations (LAPACK's getrf on a column panel, laswp, trsm with a unit lower
// triangle, gemm) on 2-D Float64 strided views, in place. Their products run as the SIMD gemm
// (simd-install.ts) and fall back to plain JavaScript loops where the runtime has no
// WebAssembly SIMD (or DTASK_ARRAY_KERNELS=js). Self-contained, so they travel to worker
// threads and processes as source text.
import type { StridedView } from '@dtask/datadeps';
import { linkKernel } from './kernel-link.js';
import type { installSimd } from './simd-install.js';

type Tile = StridedView<Float64Array>;

declare const __DTASK_SIMD__: typeof installSimd;

/** `c ← c − a·b` (LU's trailing update). */
function gemmNNTile(a: Tile, b: Tile, c: Tile): void {
  const simd = __DTASK_SIMD__();
  const m = c.shape[0];
  const n = c.shape[1];
  const k = a.shape[1];
  if (m === 0 || n === 0 || k === 0) return;
  if (simd !== null) {
    simd.gemm(
      false,
      m,
      n,
      [
        [
          [a.data, a.offset, a.strides[0], a.strides[1]],
          [b.data, b.offset, b.strides[0], b.strides[1]],
          k,
        ],
      ],
      -1,
      1,
      [c.data, c.offset, c.strides[0], c.strides[1]],
    );
    return;
  }
  const [ars, acs] = a.strides;
  const [brs, bcs] = b.strides;
  const [crs, ccs] = c.strides;
  for (let j = 0; j < n; j++) {
    for (let p = 0; p < k; p++) {
      const x = b.data[b.offset + p * brs + j * bcs];
      if (x === 0) continue;
      const ca = a.offset + p * acs;
      const cc = c.offset + j * ccs;
      for (let i = 0; i < m; i++) c.data[cc + i * crs] -= a.data[ca + i * ars] * x;
    }
  }
}

/**
 * `b ← L⁻¹·b` with `L` the unit lower triangle of the square tile `l` (its diagonal taken as
 * ones): by panels of 32 rows, each first taking the rows solved before it (SIMD gemm).
 */
function trsmUnitLowerTile(l: Tile, b: Tile): void {
  const simd = __DTASK_SIMD__();
  const NB = 32;
  const t = b.shape[0];
  const w = b.shape[1];
  const ld = l.data;
  const lo = l.offset;
  const [lrs, lcs] = l.strides;
  const bd = b.data;
  const bo = b.offset;
  const [brs, bcs] = b.strides;
  for (let i0 = 0; i0 < t; i0 += NB) {
    const ib = Math.min(NB, t - i0);
    if (i0 > 0) {
      // b[i0 … i0+ib, :] −= L[i0 … i0+ib, 0 … i0) · b[0 … i0, :]
      if (simd !== null) {
        simd.gemm(false, ib, w, [[[ld, lo + i0 * lrs, lrs, lcs], [bd, bo, brs, bcs], i0]], -1, 1, [
          bd,
          bo + i0 * brs,
          brs,
          bcs,
        ]);
      } else {
        for (let c = 0; c < w; c++) {
          const cc = bo + c * bcs;
          for (let p = 0; p < i0; p++) {
            const x = bd[cc + p * brs];
            if (x === 0) continue;
            const cl = lo + p * lcs;
            for (let i = i0; i < i0 + ib; i++) bd[cc + i * brs] -= ld[cl + i * lrs] * x;
          }
        }
      }
    }
    for (let c = 0; c < w; c++) {
      const cc = bo + c * bcs;
      for (let p = i0; p < i0 + ib; p++) {
        const x = bd[cc + p * brs];
        if (x === 0) continue;
        const cl = lo + p * lcs;
        for (let i = p + 1; i < i0 + ib; i++) bd[cc + i * brs] -= ld[cl + i * lrs] * x;
      }
    }
  }
}

/**
 * LAPACK's `getrf` on a column panel (`m × w`, `m ≥ w`), in place: `L` (unit, below the
 * diagonal) and `U` (on and above it) of the panel with its rows swapped. With `pivoting`,
 * column `j`'s pivot is the first largest `|a[i, j]|` for `i ≥ j` (BLAS `iamax`), its row
 * swapped with row `j` across the whole panel; `piv` (a `1 × w` view) receives, at `j`,
 * `rowOffset +` that row. A zero pivot leaves its column unscaled (the factorization's `info`
 * finds it on the diagonal). Only the first `steps` columns are factored (a rectangular
 * matrix's last panel, past its `min(m, n)` pivots); the rest of the panel is solved and
 * updated by them as the columns right of a block are. Blocked by 32 columns: each block is
 * factored column by column, then the panel's columns to its right are solved and updated
 * (SIMD gemm).
 */
function getrfPanelTile(
  a: Tile,
  piv: Tile,
  rowOffset: number,
  pivoting: boolean,
  steps = a.shape[1],
): void {
  const simd = __DTASK_SIMD__();
  const NB = 32;
  const d = a.data;
  const o = a.offset;
  const [rs, cs] = a.strides;
  const m = a.shape[0];
  const w = a.shape[1];
  const kmax = Math.min(m, w, steps);
  for (let j0 = 0; j0 < kmax; j0 += NB) {
    const jb = Math.min(NB, kmax - j0);
    const j1 = j0 + jb;
    for (let j = j0; j < j1; j++) {
      const cj = o + j * cs;
      let best = j;
      if (pivoting) {
        let mag = Math.abs(d[cj + j * rs]);
        for (let i = j + 1; i < m; i++) {
          const v = Math.abs(d[cj + i * rs]);
          if (v > mag) {
            mag = v;
            best = i;
          }
        }
      }
      piv.data[piv.offset + j * piv.strides[1]] = rowOffset + best;
      if (best !== j) {
        for (let c = 0; c < w; c++) {
          const x = o + j * rs + c * cs;
          const y = o + best * rs + c * cs;
          const s = d[x];
          d[x] = d[y];
          d[y] = s;
        }
      }
      const pv = d[cj + j * rs];
      if (pv !== 0) for (let i = j + 1; i < m; i++) d[cj + i * rs] /= pv;
      for (let c = j + 1; c < j1; c++) {
        const cc = o + c * cs;
        const x = d[cc + j * rs];
        if (x === 0) continue;
        for (let i = j + 1; i < m; i++) d[cc + i * rs] -= d[cj + i * rs] * x;
      }
    }
    if (j1 >= w) continue;
    // Rows j0 … j1 of the columns right of the block ← L⁻¹ · them.
    for (let c = j1; c < w; c++) {
      const cc = o + c * cs;
      for (let p = j0; p < j1; p++) {
        const x = d[cc + p * rs];
        if (x === 0) continue;
        const cl = o + p * cs;
        for (let i = p + 1; i < j1; i++) d[cc + i * rs] -= d[cl + i * rs] * x;
      }
    }
    // a[j1 … m, j1 … w) −= a[j1 … m, j0 … j1) · a[j0 … j1, j1 … w)
    const mm = m - j1;
    const nn = w - j1;
    if (mm === 0) continue;
    if (simd !== null) {
      simd.gemm(
        false,
        mm,
        nn,
        [[[d, o + j1 * rs + j0 * cs, rs, cs], [d, o + j0 * rs + j1 * cs, rs, cs], jb]],
        -1,
        1,
        [d, o + j1 * rs + j1 * cs, rs, cs],
      );
    } else {
      for (let c = j1; c < w; c++) {
        const cc = o + c * cs;
        for (let p = j0; p < j1; p++) {
          const x = d[cc + p * rs];
          if (x === 0) continue;
          const cl = o + p * cs;
          for (let i = j1; i < m; i++) d[cc + i * rs] -= d[cl + i * rs] * x;
        }
      }
    }
  }
}

/**
 * LAPACK's `laswp`: the row swaps a panel's `getrf` made, applied to `strip` (the same rows
 * of another column block): for each `p`, rows `p` and `piv[p] − rowOffset` are exchanged.
 */
function laswpTile(piv: Tile, strip: Tile, rowOffset: number): void {
  const d = strip.data;
  const o = strip.offset;
  const [rs, cs] = strip.strides;
  const w = strip.shape[1];
  const count = piv.shape[1];
  for (let p = 0; p < count; p++) {
    const r = piv.data[piv.offset + p * piv.strides[1]] - rowOffset;
    if (r === p) continue;
    for (let c = 0; c < w; c++) {
      const x = o + p * rs + c * cs;
      const y = o + r * rs + c * cs;
      const s = d[x];
      d[x] = d[y];
      d[y] = s;
    }
  }
}

// Each is named as @dtask/array/kernels exports it: a built name must match its export.
/**
 * LAPACK's `getrf` on an `m × w` column panel (`m ≥ w`), in place, with partial pivoting (or
 * none when `pivoting` is false); `piv` (`1 × w`) receives the absolute pivot rows
 * (`rowOffset +` the panel's row). With `steps` (default `w`), only that many pivots.
 */
export const getrfPanel: (
  a: Tile,
  piv: Tile,
  rowOffset: number,
  pivoting: boolean,
  steps?: number,
) => void = linkKernel(getrfPanelTile, 'getrfPanel');
/** LAPACK's `laswp`: the panel's row swaps (`piv`, absolute rows) applied to `strip`. */
export const laswp: (piv: Tile, strip: Tile, rowOffset: number) => void = linkKernel(
  laswpTile,
  'laswp',
);
/** BLAS `trsm` (left, lower, unit diagonal): `b ← L⁻¹·b`, in SIMD. */
export const trsmUnitLower: (l: Tile, b: Tile) => void = linkKernel(
  trsmUnitLowerTile,
  'trsmUnitLower',
);
/** BLAS `gemm` as LU uses it: `c ← c − a·b`, in SIMD. */
export const gemmNN: (a: Tile, b: Tile, c: Tile) => void = linkKernel(gemmNNTile, 'gemmNN');

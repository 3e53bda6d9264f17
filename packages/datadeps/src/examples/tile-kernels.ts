// Tile kernels of the tiled Cholesky factorisation, on 2-D strided views
// { data, shape, strides, offset } (see StridedView). Each is self-contained (it uses only its
// parameters and globals), so it travels to worker threads as source text: no `everywhere`
// needed. Over a SharedArrayBuffer they write the caller's matrix in place.
//
// Offsets, strides and sizes are read as `x | 0`: it tells V8 they are 32-bit integers, so the
// index arithmetic of the inner loops stays in integer registers. Measured on a 256² gemm:
// 11.2 ms with the hints, against 12.4 ms without on the main thread and 13.4 ms without in a
// worker thread, whose views arrive structured-cloned (V8 then cannot prove the strides are
// small integers). The hints change no result.
import type { StridedView } from '../strided-view.js';

type Tile = StridedView<Float64Array>;

/**
 * LAPACK's `potrf` (lower): factors the symmetric positive definite tile `a` as `L·Lᵀ` in place,
 * `L` in the lower triangle (the strict upper triangle is left as it was). Throws when `a` is not
 * positive definite: an `Error` with `code` `'DTASK_POSDEF'` and `info`, the order of the failing
 * leading minor counted from `base` (the tile's first row in the whole matrix; the tiled
 * factorizations rethrow it as `PosDefError`).
 */
export function potrf(a: Tile, base = 0): void {
  const d = a.data;
  const o = a.offset | 0;
  const rs = a.strides[0] | 0;
  const cs = a.strides[1] | 0;
  const n = a.shape[0] | 0;
  for (let j = 0; j < n; j++) {
    const rj = o + j * rs;
    let s = d[rj + j * cs];
    for (let p = 0; p < j; p++) s -= d[rj + p * cs] * d[rj + p * cs];
    if (!(s > 0)) {
      const info = base + j + 1;
      // As PosDefError's message (pos-def-error.ts): a kernel travels as its own source text.
      const e = new Error(
        `cholesky: the matrix is not positive definite: its leading minor of order ${info} is not positive; factor a symmetric positive definite matrix (A·Aᵀ + n·I is one), or use lu or qr for a general matrix`,
      );
      throw Object.assign(e, { name: 'PosDefError', code: 'DTASK_POSDEF', info });
    }
    const ljj = Math.sqrt(s);
    d[rj + j * cs] = ljj;
    for (let i = j + 1; i < n; i++) {
      const ri = o + i * rs;
      let t = d[ri + j * cs];
      for (let p = 0; p < j; p++) t -= d[ri + p * cs] * d[rj + p * cs];
      d[ri + j * cs] = t / ljj;
    }
  }
}

/**
 * BLAS `trsm` (right, lower, transposed): `b ← b · L⁻ᵀ`, `L` the lower triangle of `l`. Rows of
 * `b` are independent: two at a time, so each element of `L` loaded serves both.
 */
export function trsm(l: Tile, b: Tile): void {
  const ld = l.data;
  const lo = l.offset | 0;
  const lrs = l.strides[0] | 0;
  const lcs = l.strides[1] | 0;
  const bd = b.data;
  const bo = b.offset | 0;
  const brs = b.strides[0] | 0;
  const bcs = b.strides[1] | 0;
  const m = b.shape[0] | 0;
  const n = b.shape[1] | 0;
  for (let r = 0; r < m; r += 2) {
    const two = r + 1 < m; // an odd last row is paired with itself and written once
    const b0 = bo + r * brs;
    const b1 = two ? b0 + brs : b0;
    for (let j = 0; j < n; j++) {
      const lj = lo + j * lrs;
      let t0 = bd[b0 + j * bcs];
      let t1 = bd[b1 + j * bcs];
      for (let p = 0; p < j; p++) {
        const x = ld[lj + p * lcs];
        t0 -= bd[b0 + p * bcs] * x;
        t1 -= bd[b1 + p * bcs] * x;
      }
      const d = ld[lj + j * lcs];
      bd[b0 + j * bcs] = t0 / d;
      if (two) bd[b1 + j * bcs] = t1 / d;
    }
  }
}

/**
 * BLAS `syrk` (lower): `c ← c − a·aᵀ`, on the lower triangle of `c` only. Blocks of 2×2
 * elements of `c`, as in `gemm`; the block loop is repeated, not shared, because each kernel
 * travels to the worker threads on its own, as its source text.
 */
export function syrk(a: Tile, c: Tile): void {
  const ad = a.data;
  const ao = a.offset | 0;
  const ars = a.strides[0] | 0;
  const acs = a.strides[1] | 0;
  const cd = c.data;
  const co = c.offset | 0;
  const crs = c.strides[0] | 0;
  const ccs = c.strides[1] | 0;
  const n = c.shape[0] | 0;
  const k = a.shape[1] | 0;
  for (let i = 0; i < n; i += 2) {
    const i2 = i + 1 < n;
    const x0 = ao + i * ars;
    const x1 = i2 ? x0 + ars : x0;
    for (let j = 0; j <= i; j += 2) {
      const y0 = ao + j * ars;
      const y1 = j + 1 < n ? y0 + ars : y0;
      let s00 = 0;
      let s01 = 0;
      let s10 = 0;
      let s11 = 0;
      for (let p = 0; p < k; p++) {
        const u0 = ad[x0 + p * acs];
        const u1 = ad[x1 + p * acs];
        const v0 = ad[y0 + p * acs];
        const v1 = ad[y1 + p * acs];
        s00 += u0 * v0;
        s01 += u0 * v1;
        s10 += u1 * v0;
        s11 += u1 * v1;
      }
      const c0 = co + i * crs + j * ccs;
      cd[c0] -= s00;
      if (j + 1 <= i) cd[c0 + ccs] -= s01; // (i, j + 1) is above the diagonal when j = i
      if (i2) {
        cd[c0 + crs] -= s10;
        cd[c0 + crs + ccs] -= s11; // (i + 1, j + 1): on or below the diagonal, as j ≤ i
      }
    }
  }
}

/**
 * BLAS `gemm` (as used by Cholesky): `c ← c − a·bᵀ`. Two rows of `c` against two rows of `b`
 * at a time: each element loaded feeds two products, half the memory traffic of one dot
 * product at a time. The inputs of a 256² tile do not fit in a core's cache, so this runs
 * about 3× faster than the plain triple loop on this machine; the sums are added in the same
 * order, so the results are the same to the bit.
 */
export function gemm(a: Tile, b: Tile, c: Tile): void {
  const ad = a.data;
  const ao = a.offset | 0;
  const ars = a.strides[0] | 0;
  const acs = a.strides[1] | 0;
  const bd = b.data;
  const bo = b.offset | 0;
  const brs = b.strides[0] | 0;
  const bcs = b.strides[1] | 0;
  const cd = c.data;
  const co = c.offset | 0;
  const crs = c.strides[0] | 0;
  const ccs = c.strides[1] | 0;
  const m = c.shape[0] | 0;
  const n = c.shape[1] | 0;
  const k = a.shape[1] | 0;
  for (let i = 0; i < m; i += 2) {
    const i2 = i + 1 < m; // an odd last row or column is paired with itself and written once
    const x0 = ao + i * ars;
    const x1 = i2 ? x0 + ars : x0;
    for (let j = 0; j < n; j += 2) {
      const j2 = j + 1 < n;
      const y0 = bo + j * brs;
      const y1 = j2 ? y0 + brs : y0;
      let s00 = 0;
      let s01 = 0;
      let s10 = 0;
      let s11 = 0;
      for (let p = 0; p < k; p++) {
        const u0 = ad[x0 + p * acs];
        const u1 = ad[x1 + p * acs];
        const v0 = bd[y0 + p * bcs];
        const v1 = bd[y1 + p * bcs];
        s00 += u0 * v0;
        s01 += u0 * v1;
        s10 += u1 * v0;
        s11 += u1 * v1;
      }
      const c0 = co + i * crs + j * ccs;
      cd[c0] -= s00;
      if (j2) cd[c0 + ccs] -= s01;
      if (i2) {
        cd[c0 + crs] -= s10;
        if (j2) cd[c0 + crs + ccs] -= s11;
      }
    }
  }
}

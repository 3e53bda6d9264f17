// Tile kernels of the tiled Cholesky factorisation, on 2-D strided views
// { data, shape, strides, offset } (see StridedView). Each is self-contained (it uses only its
// parameters and globals), so it travels to worker threads as source text: no `everywhere`
// needed. Over a SharedArrayBuffer they write the caller's matrix in place.
import type { StridedView } from '../strided-view.js';

type Tile = StridedView<Float64Array>;

/**
 * LAPACK's `potrf` (lower): factors the symmetric positive definite tile `a` as `L·Lᵀ` in place,
 * `L` in the lower triangle (the strict upper triangle is left as it was). Throws when `a` is not
 * positive definite.
 */
export function potrf(a: Tile): void {
  const d = a.data;
  const o = a.offset;
  const rs = a.strides[0];
  const cs = a.strides[1];
  const n = a.shape[0];
  for (let j = 0; j < n; j++) {
    const rj = o + j * rs;
    let s = d[rj + j * cs];
    for (let p = 0; p < j; p++) s -= d[rj + p * cs] * d[rj + p * cs];
    if (!(s > 0)) throw new Error(`potrf: the matrix is not positive definite (pivot ${j})`);
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

/** BLAS `trsm` (right, lower, transposed): `b ← b · L⁻ᵀ`, `L` the lower triangle of `l`. */
export function trsm(l: Tile, b: Tile): void {
  const ld = l.data;
  const lo = l.offset;
  const lrs = l.strides[0];
  const lcs = l.strides[1];
  const bd = b.data;
  const bo = b.offset;
  const brs = b.strides[0];
  const bcs = b.strides[1];
  const m = b.shape[0];
  const n = b.shape[1];
  for (let r = 0; r < m; r++) {
    const br = bo + r * brs;
    for (let j = 0; j < n; j++) {
      const lj = lo + j * lrs;
      let t = bd[br + j * bcs];
      for (let p = 0; p < j; p++) t -= bd[br + p * bcs] * ld[lj + p * lcs];
      bd[br + j * bcs] = t / ld[lj + j * lcs];
    }
  }
}

/** BLAS `syrk` (lower): `c ← c − a·aᵀ`, on the lower triangle of `c` only. */
export function syrk(a: Tile, c: Tile): void {
  const ad = a.data;
  const ao = a.offset;
  const ars = a.strides[0];
  const acs = a.strides[1];
  const cd = c.data;
  const co = c.offset;
  const crs = c.strides[0];
  const ccs = c.strides[1];
  const n = c.shape[0];
  const k = a.shape[1];
  for (let i = 0; i < n; i++) {
    const ai = ao + i * ars;
    for (let j = 0; j <= i; j++) {
      const aj = ao + j * ars;
      let s = 0;
      for (let p = 0; p < k; p++) s += ad[ai + p * acs] * ad[aj + p * acs];
      cd[co + i * crs + j * ccs] -= s;
    }
  }
}

/** BLAS `gemm` (as used by Cholesky): `c ← c − a·bᵀ`. */
export function gemm(a: Tile, b: Tile, c: Tile): void {
  const ad = a.data;
  const ao = a.offset;
  const ars = a.strides[0];
  const acs = a.strides[1];
  const bd = b.data;
  const bo = b.offset;
  const brs = b.strides[0];
  const bcs = b.strides[1];
  const cd = c.data;
  const co = c.offset;
  const crs = c.strides[0];
  const ccs = c.strides[1];
  const m = c.shape[0];
  const n = c.shape[1];
  const k = a.shape[1];
  for (let i = 0; i < m; i++) {
    const ai = ao + i * ars;
    for (let j = 0; j < n; j++) {
      const bj = bo + j * brs;
      let s = 0;
      for (let p = 0; p < k; p++) s += ad[ai + p * acs] * bd[bj + p * bcs];
      cd[co + i * crs + j * ccs] -= s;
    }
  }
}

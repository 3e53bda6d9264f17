// The tile operations of communication-avoiding QR (CAQR: Dagger's `cageqrf!`, after LAPACK
// Working Note 222), on 2-D Float64 strided views, in place: a square tile's Householder QR
// (`geqrt`), a tile's reflectors applied to another tile (`unmqr`), the QR of an upper
// triangular tile stacked on a full one (`tsqrt`) or on another triangular one (`ttqrt`,
// `triangular`), and those pairs' reflectors applied to two tiles (`tsmqr`, `ttmqr`). The
// reflectors are kept with their scalars `τ` (a 1 × t view) and applied one at a time (Dagger's
// CAQR runs with inner block 1, `ib = 1`, the same). Self-contained: each travels to worker
// threads and processes as its source text.
import type { StridedView } from '@dtask/datadeps';

type Tile = StridedView<Float64Array>;

/**
 * LAPACK's `geqrt` (inner block 1) on a square or tall tile `a`, in place: `R` on and above
 * the diagonal, reflector `j`'s vector below it (its 1 on the diagonal implied), `τⱼ` into
 * `tau[0, j]` (0 where the column below the diagonal is already zero: `H = I`).
 */
export function caqrGeqrt(a: Tile, tau: Tile): void {
  const d = a.data;
  const o = a.offset;
  const [rs, cs] = a.strides;
  const [m, t] = a.shape;
  for (let j = 0; j < Math.min(m, t); j++) {
    const cj = o + j * cs;
    const alpha = d[cj + j * rs];
    let sigma = 0;
    for (let i = j + 1; i < m; i++) sigma += d[cj + i * rs] * d[cj + i * rs];
    const tj = tau.offset + j * tau.strides[1];
    if (sigma === 0) {
      tau.data[tj] = 0;
      continue;
    }
    const norm = Math.sqrt(alpha * alpha + sigma);
    const beta = alpha >= 0 ? -norm : norm;
    const tj0 = (beta - alpha) / beta;
    tau.data[tj] = tj0;
    const scale = 1 / (alpha - beta);
    for (let i = j + 1; i < m; i++) d[cj + i * rs] *= scale;
    d[cj + j * rs] = beta;
    for (let c = j + 1; c < t; c++) {
      const cc = o + c * cs;
      let s = d[cc + j * rs];
      for (let i = j + 1; i < m; i++) s += d[cj + i * rs] * d[cc + i * rs];
      s *= tj0;
      d[cc + j * rs] -= s;
      for (let i = j + 1; i < m; i++) d[cc + i * rs] -= s * d[cj + i * rs];
    }
  }
}

/**
 * LAPACK's `unmqr` (left): `c ← Qᵀ·c` (`transpose`, the factorization's update) or `c ← Q·c`,
 * `Q = H₀·H₁·…` the reflectors `caqrGeqrt` left in `v` with their `tau`; `c` has `v`'s rows.
 */
export function caqrUnmqr(v: Tile, tau: Tile, c: Tile, transpose: boolean): void {
  const vd = v.data;
  const [vrs, vcs] = v.strides;
  const cd = c.data;
  const [crs, ccs] = c.strides;
  const m = v.shape[0];
  const r = Math.min(m, v.shape[1]);
  const w = c.shape[1];
  for (let step = 0; step < r; step++) {
    const j = transpose ? step : r - 1 - step;
    const tj = tau.data[tau.offset + j * tau.strides[1]];
    if (tj === 0) continue;
    const vj = v.offset + j * vcs;
    for (let col = 0; col < w; col++) {
      const cc = c.offset + col * ccs;
      let s = cd[cc + j * crs];
      for (let i = j + 1; i < m; i++) s += vd[vj + i * vrs] * cd[cc + i * crs];
      s *= tj;
      cd[cc + j * crs] -= s;
      for (let i = j + 1; i < m; i++) cd[cc + i * crs] -= s * vd[vj + i * vrs];
    }
  }
}

/**
 * LAPACK's `tsqrt` (`triangular` false) or `ttqrt` (true), inner block 1: the QR of `[a1; a2]`,
 * `a1` upper triangular (`t × t`) and `a2` full (or upper triangular), in place: the new `R` in
 * `a1`'s upper triangle, reflector `j`'s lower part (its upper part `eⱼ`) in `a2`'s column `j`
 * (rows `0 … j` only when `triangular`: `a2`'s strict lower triangle is neither read nor
 * written), `τⱼ` into `tau[0, j]`.
 */
export function caqrTsqrt(a1: Tile, a2: Tile, tau: Tile, triangular: boolean): void {
  const d1 = a1.data;
  const [r1, c1] = a1.strides;
  const d2 = a2.data;
  const [r2, c2] = a2.strides;
  const t = a1.shape[1];
  const m2 = a2.shape[0];
  for (let j = 0; j < t; j++) {
    const rows = triangular ? Math.min(j + 1, m2) : m2;
    const top = a1.offset + j * r1 + j * c1;
    const cj = a2.offset + j * c2;
    const alpha = d1[top];
    let sigma = 0;
    for (let i = 0; i < rows; i++) sigma += d2[cj + i * r2] * d2[cj + i * r2];
    const tj = tau.offset + j * tau.strides[1];
    if (sigma === 0) {
      tau.data[tj] = 0;
      continue;
    }
    const norm = Math.sqrt(alpha * alpha + sigma);
    const beta = alpha >= 0 ? -norm : norm;
    const tj0 = (beta - alpha) / beta;
    tau.data[tj] = tj0;
    const scale = 1 / (alpha - beta);
    for (let i = 0; i < rows; i++) d2[cj + i * r2] *= scale;
    d1[top] = beta;
    for (let c = j + 1; c < t; c++) {
      const at1 = a1.offset + j * r1 + c * c1;
      const cc = a2.offset + c * c2;
      let s = d1[at1];
      for (let i = 0; i < rows; i++) s += d2[cj + i * r2] * d2[cc + i * r2];
      s *= tj0;
      d1[at1] -= s;
      for (let i = 0; i < rows; i++) d2[cc + i * r2] -= s * d2[cj + i * r2];
    }
  }
}

/**
 * LAPACK's `tsmqr` (`triangular` false) or `ttmqr` (true), left: `[c1; c2] ← Qᵀ·[c1; c2]`
 * (`transpose`) or `Q·[c1; c2]`, `Q` the reflectors `caqrTsqrt` left in `v2` (rows `0 … j` of
 * column `j` when `triangular`) with their `tau`; `c1` has `t` rows, `c2` `v2`'s.
 */
export function caqrTsmqr(
  c1: Tile,
  c2: Tile,
  v2: Tile,
  tau: Tile,
  transpose: boolean,
  triangular: boolean,
): void {
  const d1 = c1.data;
  const [r1, k1] = c1.strides;
  const d2 = c2.data;
  const [r2, k2] = c2.strides;
  const vd = v2.data;
  const [vr, vc] = v2.strides;
  const t = v2.shape[1];
  const m2 = v2.shape[0];
  const w = c1.shape[1];
  for (let step = 0; step < t; step++) {
    const j = transpose ? step : t - 1 - step;
    const tj = tau.data[tau.offset + j * tau.strides[1]];
    if (tj === 0) continue;
    const rows = triangular ? Math.min(j + 1, m2) : m2;
    const vj = v2.offset + j * vc;
    for (let col = 0; col < w; col++) {
      const at1 = c1.offset + j * r1 + col * k1;
      const cc = c2.offset + col * k2;
      let s = d1[at1];
      for (let i = 0; i < rows; i++) s += vd[vj + i * vr] * d2[cc + i * r2];
      s *= tj;
      d1[at1] -= s;
      for (let i = 0; i < rows; i++) d2[cc + i * r2] -= s * vd[vj + i * vr];
    }
  }
}

// The tile operations of communication-avoiding QR on complex tiles (LAPACK's zgeqrt, zunmqr,
// ztpqrt and ztpmqrt with inner block 1, as `caqr-tiles.ts` is for real ones), in place. A
// complex tile is held as a real Float64 one with twice the rows: complex element (i, j) of a
// view `v` is `v.data[v.offset + 2i·rs + j·cs]` (re) and the number one row below it (im); the
// scalars `τ` are a complex 1 × t view (2 × t real). Reflectors are `H = I − τ·v·vᴴ` (zlarfg:
// `Hᴴ` maps the column onto a real `β`, so `R` has a real diagonal with LAPACK's signs); the
// factorization applies `Hᴴ` (`conj(τ)`). Self-contained: each travels to worker threads and
// processes as its source text.
import type { StridedView } from '@dtask/datadeps';

type Tile = StridedView<Float64Array>;

/**
 * zgeqrt (inner block 1) on a complex square or tall tile `a`, in place: `R` on and above the
 * diagonal (a real diagonal), reflector `j`'s vector below it (its 1 on the diagonal implied),
 * `τⱼ` into `tau[0, j]` (0 where the column below the diagonal is zero and the diagonal real).
 */
export function caqrGeqrtComplex(a: Tile, tau: Tile): void {
  const d = a.data;
  const [rs, cs] = a.strides;
  const m = a.shape[0] / 2;
  const t = a.shape[1];
  const re = (i: number, j: number) => a.offset + 2 * i * rs + j * cs;
  for (let j = 0; j < Math.min(m, t); j++) {
    const ar = d[re(j, j)];
    const ai = d[re(j, j) + rs];
    let sigma = 0;
    for (let i = j + 1; i < m; i++) sigma += d[re(i, j)] ** 2 + d[re(i, j) + rs] ** 2;
    const tj = tau.offset + j * tau.strides[1];
    if (sigma === 0 && ai === 0) {
      tau.data[tj] = 0;
      tau.data[tj + tau.strides[0]] = 0;
      continue;
    }
    const norm = Math.sqrt(ar * ar + ai * ai + sigma);
    const beta = ar >= 0 ? -norm : norm;
    const taur = (beta - ar) / beta;
    const taui = -ai / beta;
    tau.data[tj] = taur;
    tau.data[tj + tau.strides[0]] = taui;
    // v = x / (α − β)
    const xr = ar - beta;
    const q = xr * xr + ai * ai;
    const [sr, si] = [xr / q, -ai / q];
    for (let i = j + 1; i < m; i++) {
      const [vr, vi] = [d[re(i, j)], d[re(i, j) + rs]];
      d[re(i, j)] = vr * sr - vi * si;
      d[re(i, j) + rs] = vr * si + vi * sr;
    }
    d[re(j, j)] = beta;
    d[re(j, j) + rs] = 0;
    // the tile's later columns ← Hᴴ · them = c − conj(τ)·v·(vᴴ·c)
    for (let c = j + 1; c < t; c++) {
      let pr = d[re(j, c)];
      let pi = d[re(j, c) + rs];
      for (let i = j + 1; i < m; i++) {
        const [vr, vi] = [d[re(i, j)], d[re(i, j) + rs]];
        const [cr, ci] = [d[re(i, c)], d[re(i, c) + rs]];
        pr += vr * cr + vi * ci;
        pi += vr * ci - vi * cr;
      }
      const s = pr * taur + pi * taui;
      const u = pi * taur - pr * taui;
      d[re(j, c)] -= s;
      d[re(j, c) + rs] -= u;
      for (let i = j + 1; i < m; i++) {
        const [vr, vi] = [d[re(i, j)], d[re(i, j) + rs]];
        d[re(i, c)] -= vr * s - vi * u;
        d[re(i, c) + rs] -= vr * u + vi * s;
      }
    }
  }
}

/**
 * zunmqr (left): `c ← Qᴴ·c` (`adjoint`, the factorization's update) or `c ← Q·c`, `Q = H₀·H₁·…`
 * the reflectors `caqrGeqrtComplex` left in the complex tile `v` with their `tau`; `c` is
 * complex with `v`'s rows.
 */
export function caqrUnmqrComplex(v: Tile, tau: Tile, c: Tile, adjoint: boolean): void {
  const vd = v.data;
  const [vrs, vcs] = v.strides;
  const cd = c.data;
  const [crs, ccs] = c.strides;
  const m = v.shape[0] / 2;
  const r = Math.min(m, v.shape[1]);
  const w = c.shape[1];
  for (let step = 0; step < r; step++) {
    const j = adjoint ? step : r - 1 - step;
    const tj = tau.offset + j * tau.strides[1];
    const taur = tau.data[tj];
    const taui = adjoint ? -tau.data[tj + tau.strides[0]] : tau.data[tj + tau.strides[0]];
    if (taur === 0 && taui === 0) continue;
    const vj = v.offset + j * vcs;
    for (let col = 0; col < w; col++) {
      const cc = c.offset + col * ccs;
      // s = τ'·(vᴴ·c), then c −= v·s
      let pr = cd[cc + 2 * j * crs];
      let pi = cd[cc + (2 * j + 1) * crs];
      for (let i = j + 1; i < m; i++) {
        const [xr, xi] = [vd[vj + 2 * i * vrs], vd[vj + (2 * i + 1) * vrs]];
        const [yr, yi] = [cd[cc + 2 * i * crs], cd[cc + (2 * i + 1) * crs]];
        pr += xr * yr + xi * yi;
        pi += xr * yi - xi * yr;
      }
      const s = taur * pr - taui * pi;
      const u = taur * pi + taui * pr;
      cd[cc + 2 * j * crs] -= s;
      cd[cc + (2 * j + 1) * crs] -= u;
      for (let i = j + 1; i < m; i++) {
        const [xr, xi] = [vd[vj + 2 * i * vrs], vd[vj + (2 * i + 1) * vrs]];
        cd[cc + 2 * i * crs] -= xr * s - xi * u;
        cd[cc + (2 * i + 1) * crs] -= xr * u + xi * s;
      }
    }
  }
}

/**
 * ztpqrt (`triangular` false: LAPACK's tsqrt) or its triangle-on-triangle form (true: ttqrt),
 * inner block 1: the QR of the complex `[a1; a2]`, `a1` upper triangular (`t × t`) and `a2` full
 * (or upper triangular), in place: the new `R` (a real diagonal) in `a1`'s upper triangle,
 * reflector `j`'s lower part (its upper part `eⱼ`) in `a2`'s column `j` (rows `0 … j` only when
 * `triangular`), `τⱼ` into `tau[0, j]`.
 */
export function caqrTsqrtComplex(a1: Tile, a2: Tile, tau: Tile, triangular: boolean): void {
  const d1 = a1.data;
  const [r1, c1] = a1.strides;
  const d2 = a2.data;
  const [r2, c2] = a2.strides;
  const t = a1.shape[1];
  const m2 = a2.shape[0] / 2;
  const e1 = (i: number, j: number) => a1.offset + 2 * i * r1 + j * c1;
  const e2 = (i: number, j: number) => a2.offset + 2 * i * r2 + j * c2;
  for (let j = 0; j < t; j++) {
    const rows = triangular ? Math.min(j + 1, m2) : m2;
    const ar = d1[e1(j, j)];
    const ai = d1[e1(j, j) + r1];
    let sigma = 0;
    for (let i = 0; i < rows; i++) sigma += d2[e2(i, j)] ** 2 + d2[e2(i, j) + r2] ** 2;
    const tj = tau.offset + j * tau.strides[1];
    if (sigma === 0 && ai === 0) {
      tau.data[tj] = 0;
      tau.data[tj + tau.strides[0]] = 0;
      continue;
    }
    const norm = Math.sqrt(ar * ar + ai * ai + sigma);
    const beta = ar >= 0 ? -norm : norm;
    const taur = (beta - ar) / beta;
    const taui = -ai / beta;
    tau.data[tj] = taur;
    tau.data[tj + tau.strides[0]] = taui;
    const xr = ar - beta;
    const q = xr * xr + ai * ai;
    const [sr, si] = [xr / q, -ai / q];
    for (let i = 0; i < rows; i++) {
      const [vr, vi] = [d2[e2(i, j)], d2[e2(i, j) + r2]];
      d2[e2(i, j)] = vr * sr - vi * si;
      d2[e2(i, j) + r2] = vr * si + vi * sr;
    }
    d1[e1(j, j)] = beta;
    d1[e1(j, j) + r1] = 0;
    for (let c = j + 1; c < t; c++) {
      let pr = d1[e1(j, c)];
      let pi = d1[e1(j, c) + r1];
      for (let i = 0; i < rows; i++) {
        const [vr, vi] = [d2[e2(i, j)], d2[e2(i, j) + r2]];
        const [cr, ci] = [d2[e2(i, c)], d2[e2(i, c) + r2]];
        pr += vr * cr + vi * ci;
        pi += vr * ci - vi * cr;
      }
      const s = pr * taur + pi * taui;
      const u = pi * taur - pr * taui;
      d1[e1(j, c)] -= s;
      d1[e1(j, c) + r1] -= u;
      for (let i = 0; i < rows; i++) {
        const [vr, vi] = [d2[e2(i, j)], d2[e2(i, j) + r2]];
        d2[e2(i, c)] -= vr * s - vi * u;
        d2[e2(i, c) + r2] -= vr * u + vi * s;
      }
    }
  }
}

/**
 * ztpmqrt (left; `triangular` false: tsmqr, true: ttmqr): `[c1; c2] ← Qᴴ·[c1; c2]` (`adjoint`)
 * or `Q·[c1; c2]`, `Q` the reflectors `caqrTsqrtComplex` left in the complex `v2` (rows `0 … j`
 * of column `j` when `triangular`) with their `tau`; `c1` has `t` complex rows, `c2` `v2`'s.
 */
export function caqrTsmqrComplex(
  c1: Tile,
  c2: Tile,
  v2: Tile,
  tau: Tile,
  adjoint: boolean,
  triangular: boolean,
): void {
  const d1 = c1.data;
  const [r1, k1] = c1.strides;
  const d2 = c2.data;
  const [r2, k2] = c2.strides;
  const vd = v2.data;
  const [vr, vc] = v2.strides;
  const t = v2.shape[1];
  const m2 = v2.shape[0] / 2;
  const w = c1.shape[1];
  for (let step = 0; step < t; step++) {
    const j = adjoint ? step : t - 1 - step;
    const tj = tau.offset + j * tau.strides[1];
    const taur = tau.data[tj];
    const taui = adjoint ? -tau.data[tj + tau.strides[0]] : tau.data[tj + tau.strides[0]];
    if (taur === 0 && taui === 0) continue;
    const rows = triangular ? Math.min(j + 1, m2) : m2;
    const vj = v2.offset + j * vc;
    for (let col = 0; col < w; col++) {
      const at1 = c1.offset + 2 * j * r1 + col * k1;
      const cc = c2.offset + col * k2;
      let pr = d1[at1];
      let pi = d1[at1 + r1];
      for (let i = 0; i < rows; i++) {
        const [xr, xi] = [vd[vj + 2 * i * vr], vd[vj + (2 * i + 1) * vr]];
        const [yr, yi] = [d2[cc + 2 * i * r2], d2[cc + (2 * i + 1) * r2]];
        pr += xr * yr + xi * yi;
        pi += xr * yi - xi * yr;
      }
      const s = taur * pr - taui * pi;
      const u = taur * pi + taui * pr;
      d1[at1] -= s;
      d1[at1 + r1] -= u;
      for (let i = 0; i < rows; i++) {
        const [xr, xi] = [vd[vj + 2 * i * vr], vd[vj + (2 * i + 1) * vr]];
        d2[cc + 2 * i * r2] -= xr * s - xi * u;
        d2[cc + (2 * i + 1) * r2] -= xr * u + xi * s;
      }
    }
  }
}

// The LU tile operations of complex matrices (LAPACK's zgetrf on a column panel, zlaswp, ztrsm
// with a unit lower triangle, zgemm), in place, in plain JavaScript. A complex matrix is held
// as a real Float64 one with twice the rows (each column's interleaved re, im pairs): complex
// element (i, j) of a view `v` is `v.data[v.offset + 2i·rs + j·cs]` (re) and the number one row
// below it (im), so datadeps orders the tile tasks by the same real regions it knows.
// Self-contained, so they travel to worker threads and processes as source text.
import type { StridedView } from '@dtask/datadeps';

type Tile = StridedView<Float64Array>;

/**
 * zgetrf on a complex column panel (`m × w` complex, `m ≥ w`: a real view of `2m × w`), in
 * place, unblocked: `L` (unit, below the diagonal) and `U` (on and above it) of the panel with
 * its rows swapped. With `pivoting`, column `j`'s pivot is the first largest `|re| + |im|` for
 * rows `i ≥ j` (LAPACK's izamax), its row swapped with row `j` across the panel; `piv` (a real
 * `1 × w` view) receives, at `j`, `rowOffset +` that row. A zero pivot leaves its column
 * unscaled. Only the first `steps` columns are factored; the rest are solved and updated.
 */
export function getrfPanelComplex(
  a: Tile,
  piv: Tile,
  rowOffset: number,
  pivoting: boolean,
  steps?: number,
): void {
  const d = a.data;
  const o = a.offset;
  const [rs, cs] = a.strides;
  const m = a.shape[0] / 2;
  const w = a.shape[1];
  const kmax = Math.min(m, w, steps ?? w);
  for (let j = 0; j < kmax; j++) {
    const cj = o + j * cs;
    let best = j;
    if (pivoting) {
      let mag = Math.abs(d[cj + 2 * j * rs]) + Math.abs(d[cj + (2 * j + 1) * rs]);
      for (let i = j + 1; i < m; i++) {
        const v = Math.abs(d[cj + 2 * i * rs]) + Math.abs(d[cj + (2 * i + 1) * rs]);
        if (v > mag) {
          mag = v;
          best = i;
        }
      }
    }
    piv.data[piv.offset + j * piv.strides[1]] = rowOffset + best;
    if (best !== j) {
      for (let c = 0; c < w; c++) {
        for (let part = 0; part < 2; part++) {
          const x = o + (2 * j + part) * rs + c * cs;
          const y = o + (2 * best + part) * rs + c * cs;
          const s = d[x];
          d[x] = d[y];
          d[y] = s;
        }
      }
    }
    const pr = d[cj + 2 * j * rs];
    const pi = d[cj + (2 * j + 1) * rs];
    if (pr !== 0 || pi !== 0) {
      // 1 / pivot, then each entry below it times that (as zgetf2 scales by the reciprocal).
      const q = pr * pr + pi * pi;
      const ir = pr / q;
      const ii = -pi / q;
      for (let i = j + 1; i < m; i++) {
        const x = cj + 2 * i * rs;
        const xr = d[x];
        const xi = d[x + rs];
        d[x] = xr * ir - xi * ii;
        d[x + rs] = xr * ii + xi * ir;
      }
    }
    for (let c = j + 1; c < w; c++) {
      const cc = o + c * cs;
      const yr = d[cc + 2 * j * rs];
      const yi = d[cc + (2 * j + 1) * rs];
      if (yr === 0 && yi === 0) continue;
      for (let i = j + 1; i < m; i++) {
        const lr = d[cj + 2 * i * rs];
        const li = d[cj + (2 * i + 1) * rs];
        d[cc + 2 * i * rs] -= lr * yr - li * yi;
        d[cc + (2 * i + 1) * rs] -= lr * yi + li * yr;
      }
    }
  }
}

/**
 * zlaswp: the row swaps a complex panel's getrf made (`piv`, absolute rows), applied to `strip`
 * (the same complex rows of another column block, a real view of twice the rows).
 */
export function laswpComplex(piv: Tile, strip: Tile, rowOffset: number): void {
  const d = strip.data;
  const o = strip.offset;
  const [rs, cs] = strip.strides;
  const w = strip.shape[1];
  const count = piv.shape[1];
  for (let p = 0; p < count; p++) {
    const r = piv.data[piv.offset + p * piv.strides[1]] - rowOffset;
    if (r === p) continue;
    for (let c = 0; c < w; c++) {
      for (let part = 0; part < 2; part++) {
        const x = o + (2 * p + part) * rs + c * cs;
        const y = o + (2 * r + part) * rs + c * cs;
        const s = d[x];
        d[x] = d[y];
        d[y] = s;
      }
    }
  }
}

/** ztrsm (left, lower, unit diagonal): `b ← L⁻¹·b`, `L` the unit lower triangle of tile `l`. */
export function trsmUnitLowerComplex(l: Tile, b: Tile): void {
  const t = b.shape[0] / 2;
  const w = b.shape[1];
  const ld = l.data;
  const lo = l.offset;
  const [lrs, lcs] = l.strides;
  const bd = b.data;
  const bo = b.offset;
  const [brs, bcs] = b.strides;
  for (let c = 0; c < w; c++) {
    const cc = bo + c * bcs;
    for (let p = 0; p < t; p++) {
      const xr = bd[cc + 2 * p * brs];
      const xi = bd[cc + (2 * p + 1) * brs];
      if (xr === 0 && xi === 0) continue;
      const cl = lo + p * lcs;
      for (let i = p + 1; i < t; i++) {
        const lr = ld[cl + 2 * i * lrs];
        const li = ld[cl + (2 * i + 1) * lrs];
        bd[cc + 2 * i * brs] -= lr * xr - li * xi;
        bd[cc + (2 * i + 1) * brs] -= lr * xi + li * xr;
      }
    }
  }
}

/** zgemm as LU uses it: `c ← c − a·b` on complex tiles. */
export function gemmNNComplex(a: Tile, b: Tile, c: Tile): void {
  const m = c.shape[0] / 2;
  const n = c.shape[1];
  const k = a.shape[1];
  const [ars, acs] = a.strides;
  const [brs, bcs] = b.strides;
  const [crs, ccs] = c.strides;
  const ad = a.data;
  const cd = c.data;
  for (let j = 0; j < n; j++) {
    for (let p = 0; p < k; p++) {
      const xr = b.data[b.offset + 2 * p * brs + j * bcs];
      const xi = b.data[b.offset + (2 * p + 1) * brs + j * bcs];
      if (xr === 0 && xi === 0) continue;
      const ca = a.offset + p * acs;
      const cc = c.offset + j * ccs;
      for (let i = 0; i < m; i++) {
        const ar = ad[ca + 2 * i * ars];
        const ai = ad[ca + (2 * i + 1) * ars];
        cd[cc + 2 * i * crs] -= ar * xr - ai * xi;
        cd[cc + (2 * i + 1) * crs] -= ar * xi + ai * xr;
      }
    }
  }
}

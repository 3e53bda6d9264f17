// The QR tile operations of complex matrices, in place, in plain JavaScript: LAPACK's zgeqrt on
// a column panel (Householder reflectors `H = I − τ·v·vᴴ` and the triangular factor T of their
// compact WY form, `H₀·H₁·… = I − V·T·Vᴴ`) and zlarfb (a panel's block reflector applied to
// another column block). A complex matrix is held as a real Float64 one with twice the rows:
// complex element (i, j) of a view `v` is `v.data[v.offset + 2i·rs + j·cs]` (re) and the number
// one row below it (im). Self-contained, so they travel to worker threads and processes.
import type { StridedView } from '@dtask/datadeps';

type Tile = StridedView<Float64Array>;

/**
 * zgeqrt on a complex `m × t` column panel (`m ≥ t`), in place, unblocked: `R` on and above the
 * diagonal (a real diagonal, LAPACK's signs), the Householder vectors below it (`v[j] = 1`
 * implied; `τ = 0` where the column below the diagonal is zero and the diagonal real, as
 * zlarfg), and the upper triangular complex `T` (`t × t`) written into `tm`.
 */
export function geqrtComplex(a: Tile, tm: Tile): void {
  const d = a.data;
  const o = a.offset;
  const [rs, cs] = a.strides;
  const m = a.shape[0] / 2;
  const t = a.shape[1];
  const taur = new Float64Array(t);
  const taui = new Float64Array(t);
  const re = (i: number, j: number) => o + 2 * i * rs + j * cs;
  for (let j = 0; j < t; j++) {
    const ar = d[re(j, j)];
    const ai = d[re(j, j) + rs];
    let sigma = 0;
    for (let i = j + 1; i < m; i++) sigma += d[re(i, j)] ** 2 + d[re(i, j) + rs] ** 2;
    if (sigma === 0 && ai === 0) continue;
    const norm = Math.sqrt(ar * ar + ai * ai + sigma);
    const beta = ar >= 0 ? -norm : norm;
    taur[j] = (beta - ar) / beta;
    taui[j] = -ai / beta;
    // v = x / (α − β)
    const xr = ar - beta;
    const q = xr * xr + ai * ai;
    const sr = xr / q;
    const si = -ai / q;
    for (let i = j + 1; i < m; i++) {
      const vr = d[re(i, j)];
      const vi = d[re(i, j) + rs];
      d[re(i, j)] = vr * sr - vi * si;
      d[re(i, j) + rs] = vr * si + vi * sr;
    }
    d[re(j, j)] = beta;
    d[re(j, j) + rs] = 0;
    // the panel's later columns ← Hᴴ · them = c − conj(τ)·v·(vᴴ·c)
    for (let c = j + 1; c < t; c++) {
      let pr = d[re(j, c)];
      let pi = d[re(j, c) + rs];
      for (let i = j + 1; i < m; i++) {
        const vr = d[re(i, j)];
        const vi = d[re(i, j) + rs];
        const cr = d[re(i, c)];
        const ci = d[re(i, c) + rs];
        pr += vr * cr + vi * ci;
        pi += vr * ci - vi * cr;
      }
      const s = pr * taur[j] + pi * taui[j];
      const u = pi * taur[j] - pr * taui[j];
      d[re(j, c)] -= s;
      d[re(j, c) + rs] -= u;
      for (let i = j + 1; i < m; i++) {
        const vr = d[re(i, j)];
        const vi = d[re(i, j) + rs];
        d[re(i, c)] -= vr * s - vi * u;
        d[re(i, c) + rs] -= vr * u + vi * s;
      }
    }
  }
  // T, forward and column by column (zlarft): T[0 … j, j] = −τ_j · T[0 … j, 0 … j] · Vᴴ·v_j.
  const tre = (i: number, j: number) => tm.offset + 2 * i * tm.strides[0] + j * tm.strides[1];
  const trs = tm.strides[0];
  const zr = new Float64Array(t);
  const zi = new Float64Array(t);
  for (let j = 0; j < t; j++) {
    for (let l = 0; l < j; l++) {
      // v_lᴴ · v_j, with v_l[j] the stored entry and v_j[j] = 1
      let pr = d[re(j, l)];
      let pi = -d[re(j, l) + rs];
      for (let i = j + 1; i < m; i++) {
        const xr = d[re(i, l)];
        const xi = d[re(i, l) + rs];
        const yr = d[re(i, j)];
        const yi = d[re(i, j) + rs];
        pr += xr * yr + xi * yi;
        pi += xr * yi - xi * yr;
      }
      zr[l] = pr;
      zi[l] = pi;
    }
    for (let i = 0; i < j; i++) {
      let pr = 0;
      let pi = 0;
      for (let l = i; l < j; l++) {
        const xr = tm.data[tre(i, l)];
        const xi = tm.data[tre(i, l) + trs];
        pr += xr * zr[l] - xi * zi[l];
        pi += xr * zi[l] + xi * zr[l];
      }
      tm.data[tre(i, j)] = -(taur[j] * pr - taui[j] * pi);
      tm.data[tre(i, j) + trs] = -(taur[j] * pi + taui[j] * pr);
    }
    tm.data[tre(j, j)] = taur[j];
    tm.data[tre(j, j) + trs] = taui[j];
    for (let i = j + 1; i < t; i++) {
      tm.data[tre(i, j)] = 0;
      tm.data[tre(i, j) + trs] = 0;
    }
  }
}

/**
 * zlarfb: `c ← (I − V·T·Vᴴ)·c`, or with `adjoint` `c ← (I − V·Tᴴ·Vᴴ)·c`, for the complex panel
 * `v` (`m × t`: reflectors below its diagonal, unit diagonal implied), its upper triangular `T`
 * `tm` and the complex `m × w` block `c`.
 */
export function larfbComplex(v: Tile, tm: Tile, c: Tile, adjoint: boolean): void {
  const m = v.shape[0] / 2;
  const t = v.shape[1];
  const w = c.shape[1];
  if (w === 0 || m === 0) return;
  // dense V (m × t) and T (t × t), interleaved
  const vd = new Float64Array(2 * m * t);
  for (let j = 0; j < t; j++) {
    vd[2 * (j + j * m)] = 1;
    for (let i = j + 1; i < m; i++) {
      const at = v.offset + 2 * i * v.strides[0] + j * v.strides[1];
      vd[2 * (i + j * m)] = v.data[at];
      vd[2 * (i + j * m) + 1] = v.data[at + v.strides[0]];
    }
  }
  const td = new Float64Array(2 * t * t);
  for (let j = 0; j < t; j++)
    for (let i = 0; i <= j; i++) {
      const at = tm.offset + 2 * i * tm.strides[0] + j * tm.strides[1];
      td[2 * (i + j * t)] = tm.data[at];
      td[2 * (i + j * t) + 1] = tm.data[at + tm.strides[0]];
    }
  const cd = c.data;
  const [crs, ccs] = c.strides;
  const cre = (i: number, j: number) => c.offset + 2 * i * crs + j * ccs;
  const w1 = new Float64Array(2 * t);
  const w2 = new Float64Array(2 * t);
  for (let col = 0; col < w; col++) {
    // w1 = Vᴴ·c
    for (let j = 0; j < t; j++) {
      let pr = 0;
      let pi = 0;
      for (let i = j; i < m; i++) {
        const xr = vd[2 * (i + j * m)];
        const xi = vd[2 * (i + j * m) + 1];
        const yr = cd[cre(i, col)];
        const yi = cd[cre(i, col) + crs];
        pr += xr * yr + xi * yi;
        pi += xr * yi - xi * yr;
      }
      w1[2 * j] = pr;
      w1[2 * j + 1] = pi;
    }
    // w2 = T·w1 or Tᴴ·w1
    for (let i = 0; i < t; i++) {
      let pr = 0;
      let pi = 0;
      const [from, to] = adjoint ? [0, i + 1] : [i, t];
      for (let l = from; l < to; l++) {
        const [r, k] = adjoint ? [l, i] : [i, l];
        const xr = td[2 * (r + k * t)];
        const xi = adjoint ? -td[2 * (r + k * t) + 1] : td[2 * (r + k * t) + 1];
        pr += xr * w1[2 * l] - xi * w1[2 * l + 1];
        pi += xr * w1[2 * l + 1] + xi * w1[2 * l];
      }
      w2[2 * i] = pr;
      w2[2 * i + 1] = pi;
    }
    // c −= V·w2
    for (let j = 0; j < t; j++) {
      const sr = w2[2 * j];
      const si = w2[2 * j + 1];
      if (sr === 0 && si === 0) continue;
      for (let i = j; i < m; i++) {
        const xr = vd[2 * (i + j * m)];
        const xi = vd[2 * (i + j * m) + 1];
        cd[cre(i, col)] -= xr * sr - xi * si;
        cd[cre(i, col) + crs] -= xr * si + xi * sr;
      }
    }
  }
}

// The Cholesky tile operations of Hermitian matrices (LAPACK's zpotrf, ztrsm, zherk, zgemm as the
// tiled factorization uses them), in place, in plain JavaScript, and the kernels around them
// (the lower factor as a complex block, solving with it). A complex matrix is held as a real
// Float64 one with twice the rows: complex element (i, j) of a view `v` is
// `v.data[v.offset + 2i·rs + j·cs]` (re) and the number one row below it (im).
// Self-contained, so they travel to worker threads and processes as source text.
import type { StridedView } from '@dtask/datadeps';
import type { Block } from './kernels.js';

type Tile = StridedView<Float64Array>;

/**
 * zpotrf (lower) on a diagonal tile: `A = L·Lᴴ` in place (its lower triangle becomes `L`, with a
 * real positive diagonal; imaginary parts on the diagonal are not read). Throws when the tile
 * is not positive definite: an `Error` with `code` `'DTASK_POSDEF'` and `info`, the order of the
 * failing leading minor counted from `base` (the tile's first row in the whole matrix), which
 * the factorization rethrows as `PosDefError`.
 */
export function potrfComplex(a: Tile, base = 0): void {
  const d = a.data;
  const o = a.offset;
  const [rs, cs] = a.strides;
  const t = a.shape[1];
  for (let j = 0; j < t; j++) {
    const cj = o + j * cs;
    let s = d[cj + 2 * j * rs];
    for (let k = 0; k < j; k++) {
      const x = o + k * cs + 2 * j * rs;
      s -= d[x] * d[x] + d[x + rs] * d[x + rs];
    }
    if (!(s > 0)) {
      const info = base + j + 1;
      // As PosDefError's message: a kernel travels as its own source text.
      const e = new Error(
        `cholesky: the matrix is not positive definite: its leading minor of order ${info} is not positive; factor a Hermitian positive definite matrix (A·Aᴴ + n·I is one), or use lu or qr for a general matrix`,
      );
      throw Object.assign(e, { name: 'PosDefError', code: 'DTASK_POSDEF', info });
    }
    const r = Math.sqrt(s);
    d[cj + 2 * j * rs] = r;
    d[cj + (2 * j + 1) * rs] = 0;
    for (let i = j + 1; i < t; i++) {
      let vr = d[cj + 2 * i * rs];
      let vi = d[cj + (2 * i + 1) * rs];
      for (let k = 0; k < j; k++) {
        const ck = o + k * cs;
        const xr = d[ck + 2 * i * rs];
        const xi = d[ck + (2 * i + 1) * rs];
        const yr = d[ck + 2 * j * rs];
        const yi = -d[ck + (2 * j + 1) * rs];
        vr -= xr * yr - xi * yi;
        vi -= xr * yi + xi * yr;
      }
      d[cj + 2 * i * rs] = vr / r;
      d[cj + (2 * i + 1) * rs] = vi / r;
    }
  }
}

/** ztrsm (right, lower, conjugate transpose): `b ← b·L⁻ᴴ`, `L` the factored diagonal tile `l`. */
export function trsmComplex(l: Tile, b: Tile): void {
  const ld = l.data;
  const lo = l.offset;
  const [lrs, lcs] = l.strides;
  const bd = b.data;
  const bo = b.offset;
  const [brs, bcs] = b.strides;
  const rows = b.shape[0] / 2;
  const t = b.shape[1];
  for (let j = 0; j < t; j++) {
    const cj = bo + j * bcs;
    for (let k = 0; k < j; k++) {
      // X(:, j) −= X(:, k)·conj(L(j, k))
      const yr = ld[lo + 2 * j * lrs + k * lcs];
      const yi = -ld[lo + (2 * j + 1) * lrs + k * lcs];
      if (yr === 0 && yi === 0) continue;
      const ck = bo + k * bcs;
      for (let r = 0; r < rows; r++) {
        const xr = bd[ck + 2 * r * brs];
        const xi = bd[ck + (2 * r + 1) * brs];
        bd[cj + 2 * r * brs] -= xr * yr - xi * yi;
        bd[cj + (2 * r + 1) * brs] -= xr * yi + xi * yr;
      }
    }
    const diag = ld[lo + 2 * j * lrs + j * lcs];
    for (let r = 0; r < rows; r++) {
      bd[cj + 2 * r * brs] /= diag;
      bd[cj + (2 * r + 1) * brs] /= diag;
    }
  }
}

/**
 * zgemm as the tiled Cholesky uses it: `c ← c − a·bᴴ` (with `a` and `b` the same tile, zherk's
 * update of a diagonal tile; its upper triangle is written too and never read).
 */
export function gemmNHComplex(a: Tile, b: Tile, c: Tile): void {
  const m = c.shape[0] / 2;
  const n = c.shape[1];
  const k = a.shape[1];
  const [ars, acs] = a.strides;
  const [brs, bcs] = b.strides;
  const [crs, ccs] = c.strides;
  const ad = a.data;
  const bd = b.data;
  const cd = c.data;
  for (let j = 0; j < n; j++) {
    const cc = c.offset + j * ccs;
    for (let p = 0; p < k; p++) {
      const yr = bd[b.offset + 2 * j * brs + p * bcs];
      const yi = -bd[b.offset + (2 * j + 1) * brs + p * bcs];
      if (yr === 0 && yi === 0) continue;
      const ca = a.offset + p * acs;
      for (let i = 0; i < m; i++) {
        const xr = ad[ca + 2 * i * ars];
        const xi = ad[ca + (2 * i + 1) * ars];
        cd[cc + 2 * i * crs] -= xr * yr - xi * yi;
        cd[cc + (2 * i + 1) * crs] -= xr * yi + xi * yr;
      }
    }
  }
}

/** The lower triangle of the top-left complex `n × n` of `m`: a new complex128 block. */
export function lowerPartComplex(m: Block, n: number): Block {
  const data = new Float64Array(new SharedArrayBuffer(16 * n * n));
  const x = m.data;
  const [rs, cs] = m.strides;
  for (let j = 0; j < n; j++) {
    for (let i = j; i < n; i++) {
      data[2 * (i + j * n)] = x[m.offset + 2 * i * rs + j * cs];
      data[2 * (i + j * n) + 1] = x[m.offset + (2 * i + 1) * rs + j * cs];
    }
  }
  return { data, shape: [n, n], strides: [1, n], offset: 0 };
}

/**
 * `x = A⁻¹·b = L⁻ᴴ·L⁻¹·b` for each column of the block `b` (`n × w` or a vector of `n`; complex
 * when `bComplex`), with `l` the whole complex lower Cholesky factor (a complex block, `A =
 * L·Lᴴ`): forward then back substitution. A new complex128 block, shaped as `b`.
 */
export function choleskySolveBlockComplex(l: Block, b: Block, bComplex: boolean): Block {
  const n = l.shape[0];
  const vector = b.shape.length === 1;
  const w = vector ? 1 : b.shape[1];
  const bcs = vector ? 0 : b.strides[1];
  const [rs, cs] = l.strides;
  const d = l.data;
  const out = new Float64Array(new SharedArrayBuffer(16 * n * w));
  const re = (i: number, j: number) => d[2 * (l.offset + i * rs + j * cs)];
  const im = (i: number, j: number) => d[2 * (l.offset + i * rs + j * cs) + 1];
  for (let c = 0; c < w; c++) {
    const y = out.subarray(2 * c * n, 2 * (c + 1) * n);
    for (let i = 0; i < n; i++) {
      const at = b.offset + i * b.strides[0] + c * bcs;
      y[2 * i] = bComplex ? b.data[2 * at] : b.data[at];
      y[2 * i + 1] = bComplex ? b.data[2 * at + 1] : 0;
    }
    // L·z = b (L's diagonal is real)
    for (let k = 0; k < n; k++) {
      const dk = re(k, k);
      const vr = y[2 * k] / dk;
      const vi = y[2 * k + 1] / dk;
      y[2 * k] = vr;
      y[2 * k + 1] = vi;
      for (let i = k + 1; i < n; i++) {
        const [lr, li] = [re(i, k), im(i, k)];
        y[2 * i] -= lr * vr - li * vi;
        y[2 * i + 1] -= lr * vi + li * vr;
      }
    }
    // Lᴴ·x = z: row k of Lᴴ is the conjugate of column k of L
    for (let k = n - 1; k >= 0; k--) {
      let sr = y[2 * k];
      let si = y[2 * k + 1];
      for (let i = k + 1; i < n; i++) {
        const [lr, li] = [re(i, k), -im(i, k)];
        sr -= lr * y[2 * i] - li * y[2 * i + 1];
        si -= lr * y[2 * i + 1] + li * y[2 * i];
      }
      y[2 * k] = sr / re(k, k);
      y[2 * k + 1] = si / re(k, k);
    }
  }
  return {
    data: out,
    shape: vector ? [n] : [n, w],
    strides: vector ? [1] : [1, n],
    offset: 0,
  };
}

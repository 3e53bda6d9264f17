// Plain single-threaded linear algebra (column-major, like DArray) the factorization tests
// compare with: textbook loops, no blocking, no SIMD.
import { asFloat64, transpose } from './reference.js';

/** LU with partial pivoting (first largest |pivot|), unblocked: `P·A = L·U`. */
export function luPlain(
  a: ArrayLike<number>,
  n: number,
  pivot = true,
): { l: Float64Array; u: Float64Array; p: Int32Array } {
  const x = Float64Array.from(a);
  const p = Int32Array.from({ length: n }, (_, i) => i);
  for (let k = 0; k < n; k++) {
    let best = k;
    if (pivot) {
      for (let i = k + 1; i < n; i++) {
        if (Math.abs(x[i + k * n]) > Math.abs(x[best + k * n])) best = i;
      }
    }
    if (best !== k) {
      for (let c = 0; c < n; c++) {
        const s = x[k + c * n];
        x[k + c * n] = x[best + c * n];
        x[best + c * n] = s;
      }
      const s = p[k];
      p[k] = p[best];
      p[best] = s;
    }
    const d = x[k + k * n];
    if (d === 0) continue;
    for (let i = k + 1; i < n; i++) x[i + k * n] /= d;
    for (let c = k + 1; c < n; c++)
      for (let i = k + 1; i < n; i++) x[i + c * n] -= x[i + k * n] * x[k + c * n];
  }
  const l = new Float64Array(n * n);
  const u = new Float64Array(n * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < n; i++) {
      if (i > j) l[i + j * n] = x[i + j * n];
      else u[i + j * n] = x[i + j * n];
      if (i === j) l[i + j * n] = 1;
    }
  return { l, u, p };
}

/**
 * LU of an `m × n` matrix with partial pivoting, unblocked, as Julia's `lu` of a rectangular
 * one: `L` (`m × k`, unit lower trapezoidal), `U` (`k × n`), `p` (all `m` rows), `k = min(m, n)`.
 */
export function luRectPlain(
  a: ArrayLike<number>,
  m: number,
  n: number,
  pivot = true,
): { l: Float64Array; u: Float64Array; p: Int32Array } {
  const x = Float64Array.from(a);
  const k = Math.min(m, n);
  const p = Int32Array.from({ length: m }, (_, i) => i);
  for (let j = 0; j < k; j++) {
    let best = j;
    if (pivot) {
      for (let i = j + 1; i < m; i++) {
        if (Math.abs(x[i + j * m]) > Math.abs(x[best + j * m])) best = i;
      }
    }
    if (best !== j) {
      for (let c = 0; c < n; c++) {
        const s = x[j + c * m];
        x[j + c * m] = x[best + c * m];
        x[best + c * m] = s;
      }
      const s = p[j];
      p[j] = p[best];
      p[best] = s;
    }
    const d = x[j + j * m];
    if (d === 0) continue;
    for (let i = j + 1; i < m; i++) x[i + j * m] /= d;
    for (let c = j + 1; c < n; c++)
      for (let i = j + 1; i < m; i++) x[i + c * m] -= x[i + j * m] * x[j + c * m];
  }
  const l = new Float64Array(m * k);
  const u = new Float64Array(k * n);
  for (let j = 0; j < k; j++) {
    l[j + j * m] = 1;
    for (let i = j + 1; i < m; i++) l[i + j * m] = x[i + j * m];
  }
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= Math.min(j, k - 1); i++) u[i + j * k] = x[i + j * m];
  return { l, u, p };
}

/** `x` with `A·x = b` for each of the `w` columns of `b` (Gaussian elimination with pivoting). */
export function solvePlain(a: ArrayLike<number>, n: number, b: ArrayLike<number>): Float64Array {
  const { l, u, p } = luPlain(a, n);
  // L's and U's rows as contiguous runs, each sum in a local: the same terms subtracted in the
  // same order as row by row in place, along memory.
  const lRows = transpose(l, n, n);
  const uRows = transpose(u, n, n);
  const w = b.length / n;
  const x = new Float64Array(n * w);
  for (let c = 0; c < w; c++) {
    const o = c * n;
    for (let i = 0; i < n; i++) x[o + i] = b[p[i] + o];
    for (let i = 0; i < n; i++) {
      let s = x[o + i];
      for (let k = 0; k < i; k++) s -= lRows[k + i * n] * x[o + k];
      x[o + i] = s;
    }
    for (let i = n - 1; i >= 0; i--) {
      let s = x[o + i];
      for (let k = i + 1; k < n; k++) s -= uRows[k + i * n] * x[o + k];
      x[o + i] = s / uRows[i + i * n];
    }
  }
  return x;
}

/** The determinant through `luPlain`. */
export function detPlain(a: ArrayLike<number>, n: number): number {
  const { u, p } = luPlain(a, n);
  let d = 1;
  for (let i = 0; i < n; i++) d *= u[i + i * n];
  const seen = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    if (seen[i]) continue;
    let len = 0;
    for (let j = i; !seen[j]; j = p[j]) {
      seen[j] = 1;
      len++;
    }
    if (len % 2 === 0) d = -d;
  }
  return d;
}

/** Julia's `opnorm(X, 1)` of a column-major `m × n` matrix: the largest column sum of |x|. */
export function opnorm1(x: ArrayLike<number>, m: number, n: number): number {
  let best = 0;
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += Math.abs(x[i + j * m]);
    best = Math.max(best, s);
  }
  return best;
}

/** `A·B` minus `C`, all column-major (`m × k`, `k × n`, `m × n`). */
export function productMinus(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  c: ArrayLike<number>,
  m: number,
  k: number,
  n: number,
): Float64Array {
  // A's rows contiguous, B a Float64Array: as `matmul` (the same terms in the same order).
  const rows = transpose(a, m, k);
  const y = asFloat64(b);
  const r = new Float64Array(m * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      let s = -c[i + j * m];
      for (let p = 0; p < k; p++) s += rows[p + i * k] * y[p + j * k];
      r[i + j * m] = s;
    }
  return r;
}

/** `Qᵀ·Q − I` for a column-major `m × k` matrix `q`. */
export function gramMinusIdentity(q0: ArrayLike<number>, m: number, k: number): Float64Array {
  const q = asFloat64(q0);
  const r = new Float64Array(k * k);
  // Symmetric: entry (j, i) is entry (i, j)'s sum, the same products (x·y = y·x exactly) in the
  // same order, so each pair is summed once.
  for (let j = 0; j < k; j++)
    for (let i = 0; i <= j; i++) {
      let s = i === j ? -1 : 0;
      for (let p = 0; p < m; p++) s += q[p + i * m] * q[p + j * m];
      r[i + j * k] = s;
      r[j + i * k] = s;
    }
  return r;
}

/**
 * Householder QR, unblocked, LAPACK's signs (`R`'s diagonal `−sign(a)·‖x‖`; no reflection
 * where the column below the diagonal is zero): thin `Q` (`m × k`) and `R` (`k × n`).
 */
export function qrPlain(
  a: ArrayLike<number>,
  m: number,
  n: number,
): { q: Float64Array; r: Float64Array } {
  const k = Math.min(m, n);
  const x = Float64Array.from(a);
  const vs: { v: Float64Array; tau: number; j: number }[] = [];
  for (let j = 0; j < k; j++) {
    let sigma = 0;
    for (let i = j + 1; i < m; i++) sigma += x[i + j * m] ** 2;
    if (sigma === 0) continue;
    const alpha = x[j + j * m];
    const beta = (alpha >= 0 ? -1 : 1) * Math.sqrt(alpha * alpha + sigma);
    const v = new Float64Array(m);
    v[j] = 1;
    for (let i = j + 1; i < m; i++) v[i] = x[i + j * m] / (alpha - beta);
    const tau = (beta - alpha) / beta;
    for (let c = j; c < n; c++) {
      let s = 0;
      for (let i = j; i < m; i++) s += v[i] * x[i + c * m];
      for (let i = j; i < m; i++) x[i + c * m] -= tau * s * v[i];
    }
    vs.push({ v, tau, j });
  }
  const r = new Float64Array(k * n);
  for (let c = 0; c < n; c++)
    for (let i = 0; i <= Math.min(c, k - 1); i++) r[i + c * k] = x[i + c * m];
  const q = new Float64Array(m * k);
  for (let i = 0; i < k; i++) q[i + i * m] = 1;
  for (let h = vs.length - 1; h >= 0; h--) {
    const { v, tau, j } = vs[h];
    for (let c = 0; c < k; c++) {
      let s = 0;
      for (let i = j; i < m; i++) s += v[i] * q[i + c * m];
      for (let i = j; i < m; i++) q[i + c * m] -= tau * s * v[i];
    }
  }
  return { q, r };
}

/**
 * The square roots of the eigenvalues (negative ones as 0) of the symmetric `p × p` matrix `g`,
 * descending, by a plain cyclic Jacobi eigensolver; `g` is overwritten. Given `MᵀM` (or `MMᵀ`),
 * these are `M`'s singular values.
 */
export function eigenvalueRootsPlain(g: Float64Array, p: number): Float64Array {
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let i = 0; i < p; i++) for (let j = i + 1; j < p; j++) off += g[i + j * p] ** 2;
    if (off < 1e-30) break;
    for (let i = 0; i < p; i++)
      for (let j = i + 1; j < p; j++) {
        const x = g[i + j * p];
        if (x === 0) continue;
        const th = (g[j + j * p] - g[i + i * p]) / (2 * x);
        const t = Math.sign(th || 1) / (Math.abs(th) + Math.sqrt(th * th + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < p; k++) {
          const gi = g[k + i * p];
          const gj = g[k + j * p];
          g[k + i * p] = c * gi - s * gj;
          g[k + j * p] = s * gi + c * gj;
        }
        for (let k = 0; k < p; k++) {
          const gi = g[i + k * p];
          const gj = g[j + k * p];
          g[i + k * p] = c * gi - s * gj;
          g[j + k * p] = s * gi + c * gj;
        }
      }
  }
  return Float64Array.from({ length: p }, (_, i) => Math.sqrt(Math.max(g[i + i * p], 0))).sort(
    (x, y) => y - x,
  );
}

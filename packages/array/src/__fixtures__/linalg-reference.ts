// Plain single-threaded linear algebra (column-major, like DArray) the factorization tests
// compare with: textbook loops, no blocking, no SIMD.

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

/** `x` with `A·x = b` for each of the `w` columns of `b` (Gaussian elimination with pivoting). */
export function solvePlain(a: ArrayLike<number>, n: number, b: ArrayLike<number>): Float64Array {
  const { l, u, p } = luPlain(a, n);
  const w = b.length / n;
  const x = new Float64Array(n * w);
  for (let c = 0; c < w; c++) {
    const y = x.subarray(c * n, (c + 1) * n);
    for (let i = 0; i < n; i++) y[i] = b[p[i] + c * n];
    for (let i = 0; i < n; i++) for (let k = 0; k < i; k++) y[i] -= l[i + k * n] * y[k];
    for (let i = n - 1; i >= 0; i--) {
      for (let k = i + 1; k < n; k++) y[i] -= u[i + k * n] * y[k];
      y[i] /= u[i + i * n];
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
  const r = new Float64Array(m * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      let s = -c[i + j * m];
      for (let p = 0; p < k; p++) s += a[i + p * m] * b[p + j * k];
      r[i + j * m] = s;
    }
  return r;
}

/** `Qᵀ·Q − I` for a column-major `m × k` matrix `q`. */
export function gramMinusIdentity(q: ArrayLike<number>, m: number, k: number): Float64Array {
  const r = new Float64Array(k * k);
  for (let j = 0; j < k; j++)
    for (let i = 0; i < k; i++) {
      let s = i === j ? -1 : 0;
      for (let p = 0; p < m; p++) s += q[p + i * m] * q[p + j * m];
      r[i + j * k] = s;
    }
  return r;
}

// Plain single-threaded complex linear algebra and DFT (column-major, interleaved re, im pairs,
// like a complex DArray) the complex factorization and fft tests compare with: textbook loops,
// no blocking, no tiles.
import { asFloat64 } from './reference.js';

/** Column-major complex `m×k` times `k×n`, interleaved. */
export function cmatmul(
  a0: ArrayLike<number>,
  b0: ArrayLike<number>,
  m: number,
  k: number,
  n: number,
): Float64Array {
  // Float64Arrays: the loops read one array type (the same values, the same bits)
  const a = asFloat64(a0);
  const b = asFloat64(b0);
  const c = new Float64Array(2 * m * n);
  for (let j = 0; j < n; j++)
    for (let q = 0; q < k; q++) {
      const br = b[2 * (q + j * k)];
      const bi = b[2 * (q + j * k) + 1];
      for (let i = 0; i < m; i++) {
        const ar = a[2 * (i + q * m)];
        const ai = a[2 * (i + q * m) + 1];
        c[2 * (i + j * m)] += ar * br - ai * bi;
        c[2 * (i + j * m) + 1] += ar * bi + ai * br;
      }
    }
  return c;
}

/** The conjugate transpose of a column-major complex `m×n`, interleaved. */
export function cadjoint(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const t = new Float64Array(2 * m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      t[2 * (j + i * n)] = a[2 * (i + j * m)];
      t[2 * (j + i * n) + 1] = -a[2 * (i + j * m) + 1];
    }
  return t;
}

/** The largest `|x − y|` over the numbers of two equally long arrays. */
export function maxDiff(x: ArrayLike<number>, y: ArrayLike<number>): number {
  if (x.length !== y.length) throw new Error(`lengths differ: ${x.length} and ${y.length}`);
  let worst = 0;
  for (let i = 0; i < x.length; i++) worst = Math.max(worst, Math.abs(x[i] - y[i]));
  return worst;
}

/**
 * Complex LU of an `m × n` matrix, unblocked, pivoting (unless `pivot` is false) by the first
 * largest `|re| + |im|` as LAPACK's zgetrf: `L` (`m × k`), `U` (`k × n`), `p` (all `m` rows).
 */
export function cluPlain(
  a: ArrayLike<number>,
  m: number,
  n: number,
  pivot = true,
): { l: Float64Array; u: Float64Array; p: Int32Array } {
  const x = Float64Array.from(a);
  const k = Math.min(m, n);
  const p = Int32Array.from({ length: m }, (_, i) => i);
  const at = (i: number, j: number) => 2 * (i + j * m);
  for (let j = 0; j < k; j++) {
    let best = j;
    const mag = (i: number) => Math.abs(x[at(i, j)]) + Math.abs(x[at(i, j) + 1]);
    if (pivot) for (let i = j + 1; i < m; i++) if (mag(i) > mag(best)) best = i;
    if (best !== j) {
      for (let c = 0; c < n; c++)
        for (const part of [0, 1]) {
          const s = x[at(j, c) + part];
          x[at(j, c) + part] = x[at(best, c) + part];
          x[at(best, c) + part] = s;
        }
      [p[j], p[best]] = [p[best], p[j]];
    }
    const dr = x[at(j, j)],
      di = x[at(j, j) + 1];
    const q = dr * dr + di * di;
    if (q === 0) continue;
    for (let i = j + 1; i < m; i++) {
      const xr = x[at(i, j)],
        xi = x[at(i, j) + 1];
      x[at(i, j)] = (xr * dr + xi * di) / q;
      x[at(i, j) + 1] = (xi * dr - xr * di) / q;
    }
    for (let c = j + 1; c < n; c++)
      for (let i = j + 1; i < m; i++) {
        const lr = x[at(i, j)],
          li = x[at(i, j) + 1];
        const ur = x[at(j, c)],
          ui = x[at(j, c) + 1];
        x[at(i, c)] -= lr * ur - li * ui;
        x[at(i, c) + 1] -= lr * ui + li * ur;
      }
  }
  const l = new Float64Array(2 * m * k);
  const u = new Float64Array(2 * k * n);
  for (let j = 0; j < k; j++)
    for (let i = 0; i < m; i++) {
      if (i > j) l.set([x[at(i, j)], x[at(i, j) + 1]], 2 * (i + j * m));
      if (i === j) l[2 * (i + j * m)] = 1;
    }
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= Math.min(j, k - 1); i++)
      u.set([x[at(i, j)], x[at(i, j) + 1]], 2 * (i + j * k));
  return { l, u, p };
}

/**
 * `x` with `A·x = b` by Gaussian elimination with complete-row partial pivoting on `|z|`,
 * `A` complex `n × n`, `b` complex `n × w`: an independent reference (not the LU above).
 */
export function csolvePlain(
  a: ArrayLike<number>,
  n: number,
  b: ArrayLike<number>,
  w = 1,
): Float64Array {
  const x = Float64Array.from(a);
  const y = Float64Array.from(b);
  const at = (i: number, j: number) => 2 * (i + j * n);
  const swap = (arr: Float64Array, i: number, j: number) => {
    const s = arr[i];
    arr[i] = arr[j];
    arr[j] = s;
  };
  for (let k = 0; k < n; k++) {
    let best = k;
    for (let i = k + 1; i < n; i++)
      if (Math.hypot(x[at(i, k)], x[at(i, k) + 1]) > Math.hypot(x[at(best, k)], x[at(best, k) + 1]))
        best = i;
    for (let c = 0; c < n; c++)
      for (const part of [0, 1]) swap(x, at(k, c) + part, at(best, c) + part);
    for (let c = 0; c < w; c++)
      for (const part of [0, 1]) swap(y, at(k, c) + part, at(best, c) + part);
    const dr = x[at(k, k)],
      di = x[at(k, k) + 1];
    const q = dr * dr + di * di;
    for (let i = k + 1; i < n; i++) {
      const xr = x[at(i, k)],
        xi = x[at(i, k) + 1];
      const fr = (xr * dr + xi * di) / q;
      const fi = (xi * dr - xr * di) / q;
      for (let c = k; c < n; c++) {
        const ur = x[at(k, c)],
          ui = x[at(k, c) + 1];
        x[at(i, c)] -= fr * ur - fi * ui;
        x[at(i, c) + 1] -= fr * ui + fi * ur;
      }
      for (let c = 0; c < w; c++) {
        const ur = y[at(k, c)],
          ui = y[at(k, c) + 1];
        y[at(i, c)] -= fr * ur - fi * ui;
        y[at(i, c) + 1] -= fr * ui + fi * ur;
      }
    }
  }
  for (let c = 0; c < w; c++)
    for (let k = n - 1; k >= 0; k--) {
      let [sr, si] = [y[at(k, c)], y[at(k, c) + 1]];
      for (let j = k + 1; j < n; j++) {
        const ar = x[at(k, j)],
          ai = x[at(k, j) + 1];
        const vr = y[at(j, c)],
          vi = y[at(j, c) + 1];
        sr -= ar * vr - ai * vi;
        si -= ar * vi + ai * vr;
      }
      const dr = x[at(k, k)],
        di = x[at(k, k) + 1];
      const q = dr * dr + di * di;
      y[at(k, c)] = (sr * dr + si * di) / q;
      y[at(k, c) + 1] = (si * dr - sr * di) / q;
    }
  return y;
}

/** A random Hermitian positive definite complex `n × n`: `B·Bᴴ + n·I`, interleaved. */
export function hpd(random: (n: number, seed: number) => Float64Array, n: number, seed: number) {
  const b = random(2 * n * n, seed);
  const a = cmatmul(b, cadjoint(b, n, n), n, n, n);
  for (let i = 0; i < n; i++) {
    a[2 * (i + i * n)] += n;
    a[2 * (i + i * n) + 1] = 0;
  }
  return a;
}

/** The lower triangular `L` with `A = L·Lᴴ` of a Hermitian positive definite complex `A`. */
export function ccholeskyPlain(a: ArrayLike<number>, n: number): Float64Array {
  const l = new Float64Array(2 * n * n);
  const at = (i: number, j: number) => 2 * (i + j * n);
  for (let j = 0; j < n; j++) {
    let d = a[at(j, j)];
    for (let k = 0; k < j; k++) d -= l[at(j, k)] ** 2 + l[at(j, k) + 1] ** 2;
    const s = Math.sqrt(d);
    l[at(j, j)] = s;
    for (let i = j + 1; i < n; i++) {
      let [vr, vi] = [a[at(i, j)], a[at(i, j) + 1]];
      for (let k = 0; k < j; k++) {
        // l(i,k) · conj(l(j,k))
        const xr = l[at(i, k)],
          xi = l[at(i, k) + 1];
        const yr = l[at(j, k)],
          yi = -l[at(j, k) + 1];
        vr -= xr * yr - xi * yi;
        vi -= xr * yi + xi * yr;
      }
      l[at(i, j)] = vr / s;
      l[at(i, j) + 1] = vi / s;
    }
  }
  return l;
}

/**
 * The N-D discrete Fourier transform of a complex array of `shape` (column-major, interleaved)
 * by its definition, one dimension at a time: `X[k] = Σ x[j]·e^(∓2πi·jk/n)` (`inverse`: the
 * `+` sign and a division by `n`, as Julia's `ifft`), each dimension in `dims` (default all).
 * The sum over `j` is taken in pairs `j`, `n − j`, whose terms share a cosine and negate a sine,
 * and gives `X[k]` and `X[n − k]` together (whose terms are each other's conjugates): the same
 * O(n²) sum per line as the definition, in a quarter of the multiplications.
 */
export function dftPlain(
  x: ArrayLike<number>,
  shape: readonly number[],
  inverse = false,
  dims: readonly number[] = shape.map((_, d) => d),
): Float64Array {
  let cur = Float64Array.from(x);
  const count = shape.reduce((p, s) => p * s, 1);
  for (const d of dims) {
    const n = shape[d];
    let stride = 1;
    for (let e = 0; e < d; e++) stride *= shape[e];
    const out = new Float64Array(cur.length);
    dftLines(cur, out, count, n, stride, inverse);
    cur = out;
  }
  return cur;
}

/** `dftPlain` of every line of `n` elements `stride` apart in `cur`, into `out`. */
function dftLines(
  cur: Float64Array,
  out: Float64Array,
  count: number,
  n: number,
  stride: number,
  inverse: boolean,
): void {
  const sign = inverse ? 1 : -1;
  // the pairs j, n − j for 1 ≤ j ≤ h; an even n's middle term j = n/2 pairs with itself
  const h = (n - 1) >> 1;
  const half = n >> 1;
  // e^(±2πi·q/n) for q < n: the term of j, k is entry (j·k) mod n
  const cosq = Float64Array.from({ length: n }, (_, q) => Math.cos((sign * 2 * Math.PI * q) / n));
  const sinq = Float64Array.from({ length: n }, (_, q) => Math.sin((sign * 2 * Math.PI * q) / n));
  // the terms of row k ≤ n/2 at k·(h + 1): j = 1 … h (entry 0 unused)
  const w = h + 1;
  const cw = new Float64Array((half + 1) * w);
  const sw = new Float64Array((half + 1) * w);
  for (let k = 0; k <= half; k++)
    for (let j = 0, q = 0; j <= h; j++) {
      cw[k * w + j] = cosq[q];
      sw[k * w + j] = sinq[q];
      // q = (j·k) mod n, kept by adding k each step (no product nor division per term)
      q += k;
      if (q >= n) q -= n;
    }
  // a line's pair sums and differences: x[j] ± x[n − j], real and imaginary parts
  const er = new Float64Array(w);
  const ei = new Float64Array(w);
  const dr = new Float64Array(w);
  const di = new Float64Array(w);
  const scale = inverse ? 1 / n : 1;
  for (let base = 0; base < count; base++) {
    // a start of a line along d: its index along d is 0
    if (Math.floor(base / stride) % n !== 0) continue;
    const r0 = cur[2 * base];
    const i0 = cur[2 * base + 1];
    for (let j = 1; j <= h; j++) {
      const a = 2 * (base + j * stride);
      const b = 2 * (base + (n - j) * stride);
      er[j] = cur[a] + cur[b];
      dr[j] = cur[a] - cur[b];
      ei[j] = cur[a + 1] + cur[b + 1];
      di[j] = cur[a + 1] - cur[b + 1];
    }
    const mr = n % 2 === 0 ? cur[2 * (base + half * stride)] : 0;
    const mi = n % 2 === 0 ? cur[2 * (base + half * stride) + 1] : 0;
    for (let k = 0; k <= half; k++) {
      // Σ over the pairs of er·cos, di·sin, dr·sin, ei·cos
      const o = k * w;
      let ec = 0;
      let ds = 0;
      let rs = 0;
      let ic = 0;
      for (let j = 1; j <= h; j++) {
        const c = cw[o + j];
        const s = sw[o + j];
        ec += er[j] * c;
        ds += di[j] * s;
        rs += dr[j] * s;
        ic += ei[j] * c;
      }
      // the middle term's e^(±iπk) = (−1)^k
      const m = k % 2 === 0 ? 1 : -1;
      const re = r0 + m * mr + ec;
      const im = i0 + m * mi + ic;
      const to = 2 * (base + k * stride);
      out[to] = (re - ds) * scale;
      out[to + 1] = (im + rs) * scale;
      if (k === 0 || 2 * k === n) continue;
      const back = 2 * (base + (n - k) * stride);
      out[back] = (re + ds) * scale;
      out[back + 1] = (im - rs) * scale;
    }
  }
}

/** A random unitary complex `n × n` (interleaved): modified Gram-Schmidt, twice, on random columns. */
export function cunitaryPlain(
  random: (n: number, seed: number) => Float64Array,
  n: number,
  seed: number,
): Float64Array {
  const q = random(2 * n * n, seed);
  for (let pass = 0; pass < 2; pass++)
    for (let j = 0; j < n; j++) {
      for (let o = 0; o < j; o++) {
        let [dr, di] = [0, 0];
        for (let i = 0; i < n; i++) {
          const ur = q[2 * (i + o * n)],
            ui = q[2 * (i + o * n) + 1];
          const xr = q[2 * (i + j * n)],
            xi = q[2 * (i + j * n) + 1];
          dr += ur * xr + ui * xi;
          di += ur * xi - ui * xr;
        }
        for (let i = 0; i < n; i++) {
          const ur = q[2 * (i + o * n)],
            ui = q[2 * (i + o * n) + 1];
          q[2 * (i + j * n)] -= dr * ur - di * ui;
          q[2 * (i + j * n) + 1] -= dr * ui + di * ur;
        }
      }
      let len = 0;
      for (let i = 0; i < 2 * n; i++) len += q[2 * j * n + i] ** 2;
      len = Math.sqrt(len);
      for (let i = 0; i < 2 * n; i++) q[2 * j * n + i] /= len;
    }
  return q;
}

/** Julia's `opnorm(A, 1)` of a complex `m × n`: the largest column sum of `|aᵢⱼ|`. */
export function copnorm1(a: ArrayLike<number>, m: number, n: number): number {
  let best = 0;
  for (let j = 0; j < n; j++) {
    let s = 0;
    for (let i = 0; i < m; i++) s += Math.hypot(a[2 * (i + j * m)], a[2 * (i + j * m) + 1]);
    best = Math.max(best, s);
  }
  return best;
}

/**
 * Householder QR of a complex `m × n`, unblocked, with LAPACK's zgeqrf conventions (zlarfg:
 * `β = −sign(Re α)·‖x‖`, a real diagonal of `R`): the thin `Q` (`m × k`) and `R` (`k × n`).
 */
export function cqrPlain(
  a: ArrayLike<number>,
  m: number,
  n: number,
): { q: Float64Array; r: Float64Array } {
  // plain loops over numbers: no pair arrays nor closures per element (ten times faster)
  const k = Math.min(m, n);
  const x = Float64Array.from(a);
  const taus = new Float64Array(2 * k);
  for (let j = 0; j < k; j++) {
    const jj = 2 * (j + j * m);
    const ar = x[jj];
    const ai = x[jj + 1];
    let sigma = 0;
    for (let i = j + 1; i < m; i++) sigma += x[2 * (i + j * m)] ** 2 + x[2 * (i + j * m) + 1] ** 2;
    if (sigma === 0 && ai === 0) continue; // τ = 0
    const norm = Math.sqrt(ar * ar + ai * ai + sigma);
    const beta = ar >= 0 ? -norm : norm;
    const t0 = (beta - ar) / beta;
    const t1 = -ai / beta;
    taus[2 * j] = t0;
    taus[2 * j + 1] = t1;
    const dr = ar - beta;
    const di = ai;
    const q = dr * dr + di * di;
    for (let i = j + 1; i < m; i++) {
      const e = 2 * (i + j * m);
      const vr = x[e];
      const vi = x[e + 1];
      x[e] = (vr * dr + vi * di) / q;
      x[e + 1] = (vi * dr - vr * di) / q;
    }
    x[jj] = beta;
    x[jj + 1] = 0;
    // columns right of j ← (I − conj(τ)·v·vᴴ)·them
    for (let c = j + 1; c < n; c++) {
      const jc = 2 * (j + c * m);
      let pr = x[jc];
      let pi = x[jc + 1];
      for (let i = j + 1; i < m; i++) {
        const v = 2 * (i + j * m);
        const y = 2 * (i + c * m);
        const vr = x[v];
        const vi = x[v + 1];
        pr += vr * x[y] + vi * x[y + 1];
        pi += vr * x[y + 1] - vi * x[y];
      }
      const sr = t0 * pr + t1 * pi;
      const si = t0 * pi - t1 * pr;
      x[jc] -= sr;
      x[jc + 1] -= si;
      for (let i = j + 1; i < m; i++) {
        const v = 2 * (i + j * m);
        const y = 2 * (i + c * m);
        const vr = x[v];
        const vi = x[v + 1];
        x[y] -= vr * sr - vi * si;
        x[y + 1] -= vr * si + vi * sr;
      }
    }
  }
  // Q = H₀·…·H_{k−1}·[I; 0], the last reflector first: Q ← (I − τ·v·vᴴ)·Q
  const q = new Float64Array(2 * m * k);
  for (let i = 0; i < k; i++) q[2 * (i + i * m)] = 1;
  for (let j = k - 1; j >= 0; j--) {
    const tr = taus[2 * j];
    const ti = taus[2 * j + 1];
    if (tr === 0 && ti === 0) continue;
    // v: 1 at j, the stored reflector below
    for (let c = 0; c < k; c++) {
      let pr = 0;
      let pi = 0;
      for (let i = j; i < m; i++) {
        const vr = i === j ? 1 : x[2 * (i + j * m)];
        const vi = i === j ? 0 : x[2 * (i + j * m) + 1];
        const yr = q[2 * (i + c * m)];
        const yi = q[2 * (i + c * m) + 1];
        pr += vr * yr + vi * yi;
        pi += vr * yi - vi * yr;
      }
      const sr = tr * pr - ti * pi;
      const si = tr * pi + ti * pr;
      for (let i = j; i < m; i++) {
        const vr = i === j ? 1 : x[2 * (i + j * m)];
        const vi = i === j ? 0 : x[2 * (i + j * m) + 1];
        q[2 * (i + c * m)] -= vr * sr - vi * si;
        q[2 * (i + c * m) + 1] -= vr * si + vi * sr;
      }
    }
  }
  const r = new Float64Array(2 * k * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i <= Math.min(j, k - 1); i++) {
      r[2 * (i + j * k)] = x[2 * (i + j * m)];
      r[2 * (i + j * k) + 1] = x[2 * (i + j * m) + 1];
    }
  return { q, r };
}

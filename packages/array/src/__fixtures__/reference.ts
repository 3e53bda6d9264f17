// Plain single-threaded references (column-major, like DArray) the tests compare with.
import { expect } from 'vitest';

/** `n` pseudo-random doubles in [-0.5, 0.5) from `seed`. */
export function random(n: number, seed: number): Float64Array {
  let s = seed >>> 0 || 1;
  // a plain loop: \`Float64Array.from\` with a map function takes about 250 ns an element
  const x = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = s / 2 ** 32 - 0.5;
  }
  return x;
}

/**
 * Asserts that each entry `got(i, j)` of an `m × n` grid where `where(i, j)` holds is `want`
 * (`Object.is`, as `toBe`: -0 is not 0), in one `expect` that lists those that are not as
 * `[i, j, value]`. An `expect` per entry costs tens of µs: a 128² check made seconds of them.
 */
export function expectEntries(
  m: number,
  n: number,
  where: (i: number, j: number) => boolean,
  got: (i: number, j: number) => number,
  want = 0,
): void {
  const differ: [number, number, number][] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      if (!where(i, j)) continue;
      const value = got(i, j);
      if (!Object.is(value, want)) differ.push([i, j, value]);
    }
  }
  expect(differ, `entries [i, j, value] that are not ${want}`).toEqual([]);
}

/**
 * Asserts that the `k × n` complex R (interleaved re, im; column-major) is upper triangular with
 * a real diagonal, as LAPACK's zgeqrf leaves it: zero below the diagonal, and no imaginary part
 * on or below it.
 */
export function expectComplexTriu(k: number, n: number, r: ArrayLike<number>): void {
  expectEntries(
    k,
    n,
    (i, j) => i > j,
    (i, j) => r[2 * (i + j * k)],
  );
  expectEntries(
    k,
    n,
    (i, j) => i >= j,
    (i, j) => r[2 * (i + j * k) + 1],
  );
}

/**
 * Asserts that `holds(i, j)` at every entry of an `m × n` grid, in one `expect` that lists the
 * entries `[i, j]` where it does not (an `expect` per entry costs tens of µs).
 */
export function expectEvery(
  m: number,
  n: number,
  holds: (i: number, j: number) => boolean,
  what: string,
): void {
  const failed: [number, number][] = [];
  for (let j = 0; j < n; j++) for (let i = 0; i < m; i++) if (!holds(i, j)) failed.push([i, j]);
  expect(failed, `entries [i, j] where not ${what}`).toEqual([]);
}

/** Every element of `got` within `tolerance` of `want` (and the same length). */
export function expectClose(
  got: ArrayLike<number>,
  want: ArrayLike<number>,
  tolerance = 1e-10,
): void {
  expect(got.length).toBe(want.length);
  let worst = 0;
  for (let i = 0; i < want.length; i++) worst = Math.max(worst, Math.abs(got[i] - want[i]));
  expect(worst).toBeLessThanOrEqual(tolerance);
}

/** `C = A·B` for column-major `m×k` A and `k×n` B. */
export function matmul(
  a: ArrayLike<number>,
  b: ArrayLike<number>,
  m: number,
  k: number,
  n: number,
) {
  // A's rows as contiguous runs and B as a Float64Array: each sum runs along memory and through
  // one array type (an `ArrayLike` of several types makes every read megamorphic), its terms
  // the same and in the same order.
  const rows = transpose(a, m, k);
  const y = asFloat64(b);
  const c = new Float64Array(m * n);
  for (let i = 0; i < m; i++)
    for (let j = 0; j < n; j++) {
      let s = 0;
      for (let p = 0; p < k; p++) s += rows[p + i * k] * y[p + j * k];
      c[i + j * m] = s;
    }
  return c;
}

/** `x` as a Float64Array: itself if it is one, else a copy (exact: every value is a double). */
export function asFloat64(x: ArrayLike<number>): Float64Array {
  return x instanceof Float64Array ? x : Float64Array.from(x);
}

/** The transpose of a column-major `m×n` matrix. */
export function transpose(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const t = new Float64Array(m * n);
  for (let i = 0; i < m; i++) for (let j = 0; j < n; j++) t[j + i * n] = a[i + j * m];
  return t;
}

/** `x` (column-major, `shape`) reduced along `dims` with `f` from `init`. */
export function reduceDims(
  x: ArrayLike<number>,
  shape: number[],
  dims: number[],
  f: (acc: number, v: number) => number,
  init: number,
): Float64Array {
  const out = shape.map((s, d) => (dims.includes(d) ? 1 : s));
  const size = out.reduce((p, s) => p * s, 1);
  const r = new Float64Array(size).fill(init);
  const idx = shape.map(() => 0);
  for (let i = 0; i < x.length; i++) {
    let o = 0;
    let stride = 1;
    for (let d = 0; d < shape.length; d++) {
      if (!dims.includes(d)) o += idx[d] * stride;
      stride *= out[d];
    }
    r[o] = f(r[o], x[i]);
    for (let d = 0; d < shape.length; d++) {
      idx[d]++;
      if (idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  return r;
}

/** Rows `[r0, r1)` step `rs`, columns `[c0, c1)` step `cs` of a column-major `m×n` matrix. */
export function slice2(
  a: ArrayLike<number>,
  m: number,
  [r0, r1, rs = 1]: number[],
  [c0, c1, cs = 1]: number[],
): Float64Array {
  const out: number[] = [];
  for (let j = c0; j < c1; j += cs) for (let i = r0; i < r1; i += rs) out.push(a[i + j * m]);
  return Float64Array.from(out);
}

/** A symmetric positive definite `n×n` matrix (`M·Mᵀ + n·I`), column-major. */
export function spd(n: number, seed: number): Float64Array {
  const m = random(n * n, seed);
  const a = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      let v = i === j ? n : 0;
      for (let p = 0; p < n; p++) v += m[i + p * n] * m[j + p * n];
      a[i + j * n] = v;
    }
  return a;
}

/** The plain (unblocked) Cholesky–Banachiewicz factor `L` of a column-major SPD matrix. */
export function choleskyPlain(a: ArrayLike<number>, n: number): Float64Array {
  const l = new Float64Array(n * n);
  for (let i = 0; i < n; i++)
    for (let j = 0; j <= i; j++) {
      let s = a[i + j * n];
      for (let p = 0; p < j; p++) s -= l[i + p * n] * l[j + p * n];
      l[i + j * n] = i === j ? Math.sqrt(s) : s / l[j + j * n];
    }
  return l;
}

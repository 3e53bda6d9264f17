// The plain singular values of a complex matrix, the reference `svd-complex.test.ts` compares
// with (its other references are in complex-reference.ts).

/**
 * The singular values of a complex `m × n` (interleaved), descending: the square roots of the
 * eigenvalues of the Hermitian `AᴴA` (or `AAᴴ` when wide: the smaller side) by a plain cyclic
 * Jacobi eigensolver, each rotation a real one after a phase that makes its pair's entry real.
 * (The real embedding `[[Re, −Im], [Im, Re]]` through the real solver gives the same values at
 * twice the side, eight times the work.)
 */
export function csvdvalsPlain(a: ArrayLike<number>, m: number, n: number): Float64Array {
  const x = Float64Array.from(a);
  const p = Math.min(m, n);
  // h = AᴴA (column x, column y) or AAᴴ (row x, row y), interleaved, column-major
  const h = new Float64Array(2 * p * p);
  for (let c = 0; c < p; c++)
    for (let r = 0; r < p; r++) {
      let sr = 0;
      let si = 0;
      if (m >= n)
        for (let i = 0; i < m; i++) {
          // conj(a[i, r]) · a[i, c]
          const ar = x[2 * (i + r * m)];
          const ai = x[2 * (i + r * m) + 1];
          const br = x[2 * (i + c * m)];
          const bi = x[2 * (i + c * m) + 1];
          sr += ar * br + ai * bi;
          si += ar * bi - ai * br;
        }
      else
        for (let j = 0; j < n; j++) {
          // a[r, j] · conj(a[c, j])
          const ar = x[2 * (r + j * m)];
          const ai = x[2 * (r + j * m) + 1];
          const br = x[2 * (c + j * m)];
          const bi = x[2 * (c + j * m) + 1];
          sr += ar * br + ai * bi;
          si += ai * br - ar * bi;
        }
      h[2 * (r + c * p)] = sr;
      h[2 * (r + c * p) + 1] = si;
    }
  return hermitianEigenvalueRoots(h, p).subarray(0, p);
}

/**
 * The square roots of the eigenvalues (negative ones as 0) of the Hermitian `p × p` complex `h`
 * (interleaved, column-major), descending, by a cyclic Jacobi eigensolver; `h` is overwritten.
 * Each pair `(i, j)` first has column and row `j` multiplied by the phase that makes `h[i, j]`
 * real and non-negative, then is rotated as a real symmetric pair.
 */
function hermitianEigenvalueRoots(h: Float64Array, p: number): Float64Array {
  const re = (i: number, j: number) => 2 * (i + j * p);
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let j = 0; j < p; j++)
      for (let i = 0; i < j; i++) off += h[re(i, j)] ** 2 + h[re(i, j) + 1] ** 2;
    if (off < 1e-30) break;
    for (let i = 0; i < p; i++)
      for (let j = i + 1; j < p; j++) {
        const xr = h[re(i, j)];
        const xi = h[re(i, j) + 1];
        const r = Math.hypot(xr, xi);
        if (r === 0) continue;
        // the phase d = conj(h[i, j]) / r: h[i, j]·d = r
        const dr = xr / r;
        const di = -xi / r;
        const th = (h[re(j, j)] - h[re(i, i)]) / (2 * r);
        const t = Math.sign(th || 1) / (Math.abs(th) + Math.sqrt(th * th + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        // columns: j times d, then the rotation
        for (let k = 0; k < p; k++) {
          const ir = h[re(k, i)];
          const ii = h[re(k, i) + 1];
          const jr0 = h[re(k, j)];
          const ji0 = h[re(k, j) + 1];
          const jr = jr0 * dr - ji0 * di;
          const ji = jr0 * di + ji0 * dr;
          h[re(k, i)] = c * ir - s * jr;
          h[re(k, i) + 1] = c * ii - s * ji;
          h[re(k, j)] = s * ir + c * jr;
          h[re(k, j) + 1] = s * ii + c * ji;
        }
        // rows: j times conj(d), then the rotation
        for (let k = 0; k < p; k++) {
          const ir = h[re(i, k)];
          const ii = h[re(i, k) + 1];
          const jr0 = h[re(j, k)];
          const ji0 = h[re(j, k) + 1];
          const jr = jr0 * dr + ji0 * di;
          const ji = ji0 * dr - jr0 * di;
          h[re(i, k)] = c * ir - s * jr;
          h[re(i, k) + 1] = c * ii - s * ji;
          h[re(j, k)] = s * ir + c * jr;
          h[re(j, k) + 1] = s * ii + c * ji;
        }
      }
  }
  return Float64Array.from({ length: p }, (_, i) => Math.sqrt(Math.max(h[re(i, i)], 0))).sort(
    (x, y) => y - x,
  );
}

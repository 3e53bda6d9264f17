// The kernels of `svd` on complex matrices: the thin SVD of a whole complex matrix on one
// processor (one-sided Jacobi, each pair of columns first turned to a real inner product by a
// phase), and solving with it. Self-contained, so they travel to worker threads and processes
// as source text. Blocks are complex128 (interleaved re, im pairs).
import type { Block } from './kernels.js';
import type { SVDParts } from './svd-kernels.js';

/**
 * The thin SVD `A = U·diag(S)·Vᴴ` of the complex block `whole` (`m × n`, complex128 or
 * complex64, any strides) by one-sided Jacobi (Hestenes): the columns of `A` (of `Aᴴ` when wider
 * than tall) are rotated in pairs until all are orthogonal to working precision; their norms are
 * the singular values, the rotations accumulate `V`. `u` (`m × k`) and `vt` (`Vᴴ`, `k × n`) are
 * complex128 blocks, `s` descending. Columns of `U` for zero singular values are completed to an
 * orthonormal set.
 */
export function svdWholeComplex(whole: Block): SVDParts {
  const [m0, n0] = whole.shape;
  const wide = n0 > m0;
  const [m, n] = wide ? [n0, m0] : [m0, n0];
  // W: A (or Aᴴ), m × n complex, interleaved
  const w = new Float64Array(2 * m * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      const [r, c] = wide ? [j, i] : [i, j];
      const at = 2 * (whole.offset + r * whole.strides[0] + c * whole.strides[1]);
      w[2 * (i + j * m)] = whole.data[at];
      w[2 * (i + j * m) + 1] = wide ? -whole.data[at + 1] : whole.data[at + 1];
    }
  const v = new Float64Array(2 * n * n);
  for (let i = 0; i < n; i++) v[2 * (i + i * n)] = 1;
  const eps = 2.220446049250313e-16;
  // columns p, q of x (rows r each) ← (c·x_p − s·e^(−iφ)·x_q, s·x_p + c·e^(−iφ)·x_q)
  const rotate = (
    x: Float64Array,
    rows: number,
    p: number,
    q: number,
    c: number,
    s: number,
    er: number,
    ei: number,
  ) => {
    for (let i = 0; i < rows; i++) {
      const a = 2 * (i + p * rows);
      const b = 2 * (i + q * rows);
      const xr = x[a];
      const xi = x[a + 1];
      const yr = x[b] * er - x[b + 1] * ei;
      const yi = x[b] * ei + x[b + 1] * er;
      x[a] = c * xr - s * yr;
      x[a + 1] = c * xi - s * yi;
      x[b] = s * xr + c * yr;
      x[b + 1] = s * xi + c * yi;
    }
  };
  for (let sweep = 0; sweep < 80; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0;
        let beta = 0;
        let gr = 0;
        let gi = 0;
        for (let i = 0; i < m; i++) {
          const xr = w[2 * (i + p * m)];
          const xi = w[2 * (i + p * m) + 1];
          const yr = w[2 * (i + q * m)];
          const yi = w[2 * (i + q * m) + 1];
          alpha += xr * xr + xi * xi;
          beta += yr * yr + yi * yi;
          // conj(x)·y
          gr += xr * yr + xi * yi;
          gi += xr * yi - xi * yr;
        }
        const g = Math.hypot(gr, gi);
        if (g === 0 || g <= eps * Math.sqrt(alpha * beta)) continue;
        rotated = true;
        // e^(−iφ) with γ = |γ|·e^(iφ): column q times it has a real inner product |γ| with p
        const er = gr / g;
        const ei = -gi / g;
        const zeta = (beta - alpha) / (2 * g);
        const t = Math.sign(zeta || 1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        rotate(w, m, p, q, c, s, er, ei);
        rotate(v, n, p, q, c, s, er, ei);
      }
    }
    if (!rotated) break;
  }
  const norms = Array.from({ length: n }, (_, j) => {
    let s = 0;
    for (let i = 0; i < 2 * m; i++) s += w[i + 2 * j * m] ** 2;
    return Math.sqrt(s);
  });
  const order = norms.map((_, j) => j).sort((a, b) => norms[b] - norms[a]);
  const s = Float64Array.from(order, (j) => norms[j]);
  const u = new Float64Array(2 * m * n);
  const vs = new Float64Array(2 * n * n);
  for (let c = 0; c < n; c++) {
    const j = order[c];
    for (let i = 0; i < 2 * n; i++) vs[i + 2 * c * n] = v[i + 2 * j * n];
    if (s[c] === 0) continue;
    for (let i = 0; i < 2 * m; i++) u[i + 2 * c * m] = w[i + 2 * j * m] / s[c];
  }
  // Columns of U for zero singular values: unit vectors made orthogonal to the rest.
  for (let c = 0; c < n; c++) {
    if (s[c] !== 0) continue;
    for (let e = 0; e < m; e++) {
      const x = new Float64Array(2 * m);
      x[2 * e] = 1;
      for (let pass = 0; pass < 2; pass++)
        for (let o = 0; o < n; o++) {
          if (o === c) continue;
          let dr = 0;
          let di = 0;
          for (let i = 0; i < m; i++) {
            const [ur, ui] = [u[2 * (i + o * m)], u[2 * (i + o * m) + 1]];
            dr += ur * x[2 * i] + ui * x[2 * i + 1];
            di += ur * x[2 * i + 1] - ui * x[2 * i];
          }
          for (let i = 0; i < m; i++) {
            const [ur, ui] = [u[2 * (i + o * m)], u[2 * (i + o * m) + 1]];
            x[2 * i] -= dr * ur - di * ui;
            x[2 * i + 1] -= dr * ui + di * ur;
          }
        }
      let len = 0;
      for (let i = 0; i < 2 * m; i++) len += x[i] * x[i];
      if (len < 0.25) continue;
      len = Math.sqrt(len);
      for (let i = 0; i < 2 * m; i++) u[i + 2 * c * m] = x[i] / len;
      break;
    }
  }
  const block = (data: Float64Array, rows: number, cols: number): Block => {
    const shared = new Float64Array(new SharedArrayBuffer(16 * rows * cols));
    shared.set(data);
    return { data: shared, shape: [rows, cols], strides: [1, rows], offset: 0 };
  };
  const adjointOf = (data: Float64Array, rows: number, cols: number): Float64Array => {
    const out = new Float64Array(2 * rows * cols);
    for (let j = 0; j < cols; j++)
      for (let i = 0; i < rows; i++) {
        out[2 * (j + i * cols)] = data[2 * (i + j * rows)];
        out[2 * (j + i * cols) + 1] = -data[2 * (i + j * rows) + 1];
      }
    return out;
  };
  // A = U·S·Vᴴ; for a wide A, Aᴴ = U·S·Vᴴ gives A = V·S·Uᴴ.
  if (wide) return { u: block(vs, n, n), s, vt: block(adjointOf(u, m, n), n, m) };
  return { u: block(u, m, n), s, vt: block(adjointOf(vs, n, n), n, n) };
}

/**
 * `x = V·diag(S)⁺·Uᴴ·b` for each column of the block `b` (`m` rows, a vector or `m × w`; complex
 * when `bComplex`): the minimum-norm least-squares solution of a complex SVD, singular values at
 * or below `rtol·S[0]` taken as zero. With `b` undefined, the pseudo-inverse (`n × m`). A new
 * complex128 block.
 */
export function svdSolveBlockComplex(
  parts: SVDParts,
  b: Block | undefined,
  rtol: number,
  bComplex: boolean,
): Block {
  const { u, s, vt } = parts;
  const [m, k] = u.shape;
  const n = vt.shape[1];
  const vector = b !== undefined && b.shape.length === 1;
  const w = b === undefined ? m : vector ? 1 : b.shape[1];
  const cut = rtol * (s[0] ?? 0);
  const out = new Float64Array(new SharedArrayBuffer(16 * n * w));
  const zr = new Float64Array(k);
  const zi = new Float64Array(k);
  const ud = u.data;
  const vd = vt.data;
  for (let c = 0; c < w; c++) {
    for (let j = 0; j < k; j++) {
      zr[j] = 0;
      zi[j] = 0;
      if (!(s[j] > cut)) continue;
      let sr = 0;
      let si = 0;
      for (let i = 0; i < m; i++) {
        let br = i === c ? 1 : 0;
        let bi = 0;
        if (b !== undefined) {
          const at = b.offset + i * b.strides[0] + (vector ? 0 : c * b.strides[1]);
          br = bComplex ? b.data[2 * at] : b.data[at];
          bi = bComplex ? b.data[2 * at + 1] : 0;
        }
        const o = 2 * (u.offset + i * u.strides[0] + j * u.strides[1]);
        // conj(u)·b
        sr += ud[o] * br + ud[o + 1] * bi;
        si += ud[o] * bi - ud[o + 1] * br;
      }
      zr[j] = sr / s[j];
      zi[j] = si / s[j];
    }
    for (let i = 0; i < n; i++) {
      let sr = 0;
      let si = 0;
      for (let j = 0; j < k; j++) {
        // V[i, j] = conj(Vt[j, i])
        const o = 2 * (vt.offset + j * vt.strides[0] + i * vt.strides[1]);
        const vr = vd[o];
        const vi = -vd[o + 1];
        sr += vr * zr[j] - vi * zi[j];
        si += vr * zi[j] + vi * zr[j];
      }
      out[2 * (i + c * n)] = sr;
      out[2 * (i + c * n) + 1] = si;
    }
  }
  if (vector) return { data: out, shape: [n], strides: [1], offset: 0 };
  return { data: out, shape: [n, w], strides: [1, n], offset: 0 };
}

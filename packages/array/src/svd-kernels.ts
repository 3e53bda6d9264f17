// The kernels of `svd`: the thin singular value decomposition of a whole matrix on one
// processor (one-sided Jacobi), reading its parts, and solving with it. Self-contained, so they
// travel to worker threads and processes as source text.
import type { Block } from './kernels.js';

/** What `svdWhole` gives: `A = U·diag(S)·Vt`, thin (`k = min(m, n)`), `S` descending. */
export interface SVDParts {
  /** `m × k`, orthonormal columns. */
  u: Block;
  /** The `k` singular values, non-negative, descending. */
  s: Float64Array;
  /** `k × n`, orthonormal rows. */
  vt: Block;
}

/**
 * The thin SVD of the block `whole` (`m × n`, any dtype, any strides) by one-sided Jacobi
 * (Hestenes): the columns of `A` (of `Aᵀ` when wider than tall) are rotated in pairs until all
 * are orthogonal to working precision; their norms are the singular values, the rotations
 * accumulate `V`. Columns of `U` for zero singular values are completed to an orthonormal set.
 */
export function svdWhole(whole: Block): SVDParts {
  const [m0, n0] = whole.shape;
  const wide = n0 > m0;
  const [m, n] = wide ? [n0, m0] : [m0, n0];
  const w = new Float64Array(m * n);
  for (let j = 0; j < n; j++)
    for (let i = 0; i < m; i++) {
      const [r, c] = wide ? [j, i] : [i, j];
      w[i + j * m] = whole.data[whole.offset + r * whole.strides[0] + c * whole.strides[1]];
    }
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i + i * n] = 1;
  const eps = 2.220446049250313e-16;
  for (let sweep = 0; sweep < 80; sweep++) {
    let rotated = false;
    for (let p = 0; p < n - 1; p++) {
      for (let q = p + 1; q < n; q++) {
        let alpha = 0;
        let beta = 0;
        let gamma = 0;
        for (let i = 0; i < m; i++) {
          const x = w[i + p * m];
          const y = w[i + q * m];
          alpha += x * x;
          beta += y * y;
          gamma += x * y;
        }
        if (gamma === 0 || Math.abs(gamma) <= eps * Math.sqrt(alpha * beta)) continue;
        rotated = true;
        const zeta = (beta - alpha) / (2 * gamma);
        const t = Math.sign(zeta || 1) / (Math.abs(zeta) + Math.sqrt(1 + zeta * zeta));
        const c = 1 / Math.sqrt(1 + t * t);
        const s = c * t;
        for (let i = 0; i < m; i++) {
          const x = w[i + p * m];
          const y = w[i + q * m];
          w[i + p * m] = c * x - s * y;
          w[i + q * m] = s * x + c * y;
        }
        for (let i = 0; i < n; i++) {
          const x = v[i + p * n];
          const y = v[i + q * n];
          v[i + p * n] = c * x - s * y;
          v[i + q * n] = s * x + c * y;
        }
      }
    }
    if (!rotated) break;
  }
  const norms = Array.from({ length: n }, (_, j) => {
    let s = 0;
    for (let i = 0; i < m; i++) s += w[i + j * m] ** 2;
    return Math.sqrt(s);
  });
  const order = norms.map((_, j) => j).sort((a, b) => norms[b] - norms[a]);
  const s = Float64Array.from(order, (j) => norms[j]);
  // U (m × n) from W's columns, V (n × n) reordered alike.
  const u = new Float64Array(m * n);
  const vs = new Float64Array(n * n);
  for (let c = 0; c < n; c++) {
    const j = order[c];
    for (let i = 0; i < n; i++) vs[i + c * n] = v[i + j * n];
    if (s[c] === 0) continue;
    for (let i = 0; i < m; i++) u[i + c * m] = w[i + j * m] / s[c];
  }
  // Columns of U for zero singular values: unit vectors made orthogonal to the rest.
  for (let c = 0; c < n; c++) {
    if (s[c] !== 0) continue;
    for (let e = 0; e < m; e++) {
      const x = new Float64Array(m);
      x[e] = 1;
      for (let pass = 0; pass < 2; pass++)
        for (let o = 0; o < n; o++) {
          if (o === c) continue;
          let dot = 0;
          for (let i = 0; i < m; i++) dot += u[i + o * m] * x[i];
          for (let i = 0; i < m; i++) x[i] -= dot * u[i + o * m];
        }
      let len = 0;
      for (let i = 0; i < m; i++) len += x[i] * x[i];
      if (len < 0.25) continue;
      len = Math.sqrt(len);
      for (let i = 0; i < m; i++) u[i + c * m] = x[i] / len;
      break;
    }
  }
  const block = (data: Float64Array, rows: number, cols: number): Block => {
    const shared = new Float64Array(new SharedArrayBuffer(8 * rows * cols));
    shared.set(data);
    return { data: shared, shape: [rows, cols], strides: [1, rows], offset: 0 };
  };
  const transposed = (data: Float64Array, rows: number, cols: number): Float64Array => {
    const out = new Float64Array(rows * cols);
    for (let j = 0; j < cols; j++)
      for (let i = 0; i < rows; i++) out[j + i * cols] = data[i + j * rows];
    return out;
  };
  // A = U·S·Vᵀ; for a wide A, Aᵀ = U·S·Vᵀ gives A = V·S·Uᵀ.
  if (wide) return { u: block(vs, n, n), s, vt: block(transposed(u, m, n), n, m) };
  return { u: block(u, m, n), s, vt: block(transposed(vs, n, n), n, n) };
}

/** One of the parts of an `svdWhole` result: `'u'` or `'vt'`. */
export function svdPart(parts: SVDParts, name: 'u' | 'vt'): Block {
  return parts[name];
}

/** The singular values of an `svdWhole` result. */
export function svdValues(parts: SVDParts): Float64Array {
  return parts.s;
}

/**
 * `x = V·diag(S)⁺·Uᵀ·b` for each column of the block `b` (`m` rows, a vector or `m × w`): the
 * minimum-norm least-squares solution, singular values at or below `rtol·S[0]` taken as zero
 * (Julia's `ldiv!` on an `SVD`). With `b` undefined, the pseudo-inverse (`n × m`). A new block.
 */
export function svdSolveBlock(parts: SVDParts, b: Block | undefined, rtol: number): Block {
  const { u, s, vt } = parts;
  const [m, k] = u.shape;
  const n = vt.shape[1];
  const vector = b !== undefined && b.shape.length === 1;
  const w = b === undefined ? m : vector ? 1 : b.shape[1];
  const bAt = (i: number, c: number) =>
    b === undefined
      ? i === c
        ? 1
        : 0
      : b.data[b.offset + i * b.strides[0] + (vector ? 0 : c * b.strides[1])];
  const cut = rtol * (s[0] ?? 0);
  const out = new Float64Array(new SharedArrayBuffer(8 * n * w));
  const z = new Float64Array(k);
  for (let c = 0; c < w; c++) {
    for (let j = 0; j < k; j++) {
      if (!(s[j] > cut)) {
        z[j] = 0;
        continue;
      }
      let sum = 0;
      for (let i = 0; i < m; i++)
        sum += u.data[u.offset + i * u.strides[0] + j * u.strides[1]] * bAt(i, c);
      z[j] = sum / s[j];
    }
    for (let i = 0; i < n; i++) {
      let sum = 0;
      for (let j = 0; j < k; j++)
        sum += vt.data[vt.offset + j * vt.strides[0] + i * vt.strides[1]] * z[j];
      out[i + c * n] = sum;
    }
  }
  if (vector) return { data: out, shape: [n], strides: [1], offset: 0 };
  return { data: out, shape: [n, w], strides: [1, n], offset: 0 };
}

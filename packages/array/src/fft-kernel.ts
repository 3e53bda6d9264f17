// The kernel of `fft` and `ifft`: the discrete Fourier transform of a block along some of its
// dimensions. A length whose prime factors are all 13 or less goes through a mixed-radix
// Stockham FFT (radix-4, 2, 3 and 5 butterflies written out, other small primes by their
// definition); any other length through Bluestein's chirp-z algorithm (a convolution done by a
// Stockham FFT of a power-of-two length ≥ 2n − 1), so every length costs O(n log n). Lines are
// transformed a batch at a time, element j of every line of the batch side by side, so that each
// butterfly's innermost loop runs along contiguous memory whatever the dimension's stride.
// Self-contained, so it travels to worker threads and processes as source text.
import type { Block } from './kernels.js';

/**
 * The DFT of `block` (any dtype; complex when `inComplex`, interleaved re, im pairs) along each
 * dimension in `dims` (whose lengths the block holds whole): `X[k] = Σⱼ x[j]·e^(−2πi·jk/n)`, or
 * with `inverse` the `+` sign and a division by `n` (Julia's `ifft`). Computed in Float64; a new
 * contiguous complex block of `dtype` (complex128 or complex64).
 */
export function fftBlock(
  block: Block,
  dims: number[],
  inverse: boolean,
  dtype: string,
  inComplex: boolean,
): Block {
  const shape = block.shape;
  const rank = shape.length;
  let count = 1;
  for (const s of shape) count *= s;
  const re = new Float64Array(count);
  const im = new Float64Array(count);
  let dense = true;
  for (let d = 0, s = 1; d < rank; s *= shape[d], d++)
    if (shape[d] > 1 && block.strides[d] !== s) dense = false;
  if (dense) {
    const src = block.data;
    const o = block.offset;
    if (inComplex) {
      for (let e = 0; e < count; e++) {
        re[e] = src[2 * (o + e)];
        im[e] = src[2 * (o + e) + 1];
      }
    } else {
      for (let e = 0; e < count; e++) re[e] = src[o + e];
    }
  } else {
    const index = new Array(rank).fill(0);
    for (let e = 0; e < count; e++) {
      let o = block.offset;
      for (let d = 0; d < rank; d++) o += index[d] * block.strides[d];
      re[e] = inComplex ? block.data[2 * o] : block.data[o];
      im[e] = inComplex ? block.data[2 * o + 1] : 0;
      for (let d = 0; d < rank; d++) {
        if (++index[d] < shape[d]) break;
        index[d] = 0;
      }
    }
  }

  // A Stockham plan of length n: per stage its radix p and the twiddles e^(−2πi·jk/len) (len
  // the stage's length, j < len/p, 1 ≤ k < p) at j·(p − 1) + k − 1.
  type Stage = { p: number; len: number; twr: Float64Array; twi: Float64Array };
  type Plan = { n: number; stages: Stage[] };
  // A Bluestein plan of length n: the chirp e^(−πik²/n), the transform of its conjugate padded
  // to the power of two m, and m's plan.
  type Chirp = {
    n: number;
    m: number;
    wr: Float64Array;
    wi: Float64Array;
    br: Float64Array;
    bi: Float64Array;
    inner: Plan;
  };
  const stockhamPlan = (n: number, radices: number[]): Plan => {
    const stages: Stage[] = [];
    let len = n;
    for (const p of radices) {
      const m = len / p;
      const twr = new Float64Array(m * (p - 1));
      const twi = new Float64Array(m * (p - 1));
      for (let j = 0; j < m; j++)
        for (let k = 1; k < p; k++) {
          // j·k mod len keeps the angle exact
          const angle = (2 * Math.PI * ((j * k) % len)) / len;
          twr[j * (p - 1) + k - 1] = Math.cos(angle);
          twi[j * (p - 1) + k - 1] = -Math.sin(angle);
        }
      stages.push({ p, len, twr, twi });
      len = m;
    }
    return { n, stages };
  };
  /** n's radices (4s first, then 2, 3, 5, then primes up to 13), or undefined past 13. */
  const radicesOf = (n: number): number[] | undefined => {
    const radices: number[] = [];
    let r = n;
    while (r % 4 === 0) {
      radices.push(4);
      r /= 4;
    }
    for (const p of [2, 3, 5, 7, 11, 13]) {
      while (r % p === 0) {
        radices.push(p);
        r /= p;
      }
    }
    return r === 1 ? radices : undefined;
  };
  const chirpPlan = (n: number): Chirp => {
    let m = 1;
    while (m < 2 * n - 1) m <<= 1;
    const inner = stockhamPlan(m, radicesOf(m) as number[]);
    const wr = new Float64Array(n);
    const wi = new Float64Array(n);
    for (let k = 0; k < n; k++) {
      // k² mod 2n keeps the angle exact for long lines
      const angle = (Math.PI * ((k * k) % (2 * n))) / n;
      wr[k] = Math.cos(angle);
      wi[k] = -Math.sin(angle);
    }
    const br = new Float64Array(m);
    const bi = new Float64Array(m);
    br[0] = wr[0];
    bi[0] = -wi[0];
    for (let k = 1; k < n; k++) {
      br[k] = br[m - k] = wr[k];
      bi[k] = bi[m - k] = -wi[k];
    }
    const [tr, ti] = stockham(inner, br, bi, new Float64Array(m), new Float64Array(m), 1);
    return { n, m, wr, wi, br: tr, bi: ti, inner };
  };

  /**
   * The forward transform of `s` lines of `plan.n` side by side (element j of line q at
   * q + s·j) in (xr, xi), using (yr, yi) as scratch; returns the pair that holds the result.
   */
  function stockham(
    plan: Plan,
    xr: Float64Array,
    xi: Float64Array,
    yr: Float64Array,
    yi: Float64Array,
    s: number,
  ): [Float64Array, Float64Array] {
    for (const { p, len, twr, twi } of plan.stages) {
      const m = len / p;
      // input element r·m + j of a sequence at q + s·(j + r·m); output k at q + s·(p·j + k)
      const sm = s * m;
      if (p === 4) {
        for (let j = 0; j < m; j++) {
          const w1r = twr[3 * j];
          const w1i = twi[3 * j];
          const w2r = twr[3 * j + 1];
          const w2i = twi[3 * j + 1];
          const w3r = twr[3 * j + 2];
          const w3i = twi[3 * j + 2];
          const i0 = s * j;
          const o0 = s * 4 * j;
          for (let q = 0; q < s; q++) {
            const a = i0 + q;
            const a0r = xr[a];
            const a0i = xi[a];
            const a1r = xr[a + sm];
            const a1i = xi[a + sm];
            const a2r = xr[a + 2 * sm];
            const a2i = xi[a + 2 * sm];
            const a3r = xr[a + 3 * sm];
            const a3i = xi[a + 3 * sm];
            const t0r = a0r + a2r;
            const t0i = a0i + a2i;
            const t1r = a0r - a2r;
            const t1i = a0i - a2i;
            const t2r = a1r + a3r;
            const t2i = a1i + a3i;
            // (a1 − a3)·(−i)
            const t3r = a1i - a3i;
            const t3i = a3r - a1r;
            const o = o0 + q;
            yr[o] = t0r + t2r;
            yi[o] = t0i + t2i;
            const y1r = t1r + t3r;
            const y1i = t1i + t3i;
            yr[o + s] = y1r * w1r - y1i * w1i;
            yi[o + s] = y1r * w1i + y1i * w1r;
            const y2r = t0r - t2r;
            const y2i = t0i - t2i;
            yr[o + 2 * s] = y2r * w2r - y2i * w2i;
            yi[o + 2 * s] = y2r * w2i + y2i * w2r;
            const y3r = t1r - t3r;
            const y3i = t1i - t3i;
            yr[o + 3 * s] = y3r * w3r - y3i * w3i;
            yi[o + 3 * s] = y3r * w3i + y3i * w3r;
          }
        }
      } else if (p === 2) {
        for (let j = 0; j < m; j++) {
          const wr = twr[j];
          const wi = twi[j];
          const i0 = s * j;
          const o0 = s * 2 * j;
          for (let q = 0; q < s; q++) {
            const a = i0 + q;
            const a0r = xr[a];
            const a0i = xi[a];
            const a1r = xr[a + sm];
            const a1i = xi[a + sm];
            const o = o0 + q;
            yr[o] = a0r + a1r;
            yi[o] = a0i + a1i;
            const dr = a0r - a1r;
            const di = a0i - a1i;
            yr[o + s] = dr * wr - di * wi;
            yi[o + s] = dr * wi + di * wr;
          }
        }
      } else if (p === 3) {
        // e^(−2πi/3) = −1/2 − i·c
        const c = Math.sqrt(3) / 2;
        for (let j = 0; j < m; j++) {
          const w1r = twr[2 * j];
          const w1i = twi[2 * j];
          const w2r = twr[2 * j + 1];
          const w2i = twi[2 * j + 1];
          const i0 = s * j;
          const o0 = s * 3 * j;
          for (let q = 0; q < s; q++) {
            const a = i0 + q;
            const a0r = xr[a];
            const a0i = xi[a];
            const a1r = xr[a + sm];
            const a1i = xi[a + sm];
            const a2r = xr[a + 2 * sm];
            const a2i = xi[a + 2 * sm];
            const br = a1r + a2r;
            const bi = a1i + a2i;
            const mr = a0r - 0.5 * br;
            const mi = a0i - 0.5 * bi;
            // −i·c·(a1 − a2)
            const ur = c * (a1i - a2i);
            const ui = -c * (a1r - a2r);
            const o = o0 + q;
            yr[o] = a0r + br;
            yi[o] = a0i + bi;
            const y1r = mr + ur;
            const y1i = mi + ui;
            yr[o + s] = y1r * w1r - y1i * w1i;
            yi[o + s] = y1r * w1i + y1i * w1r;
            const y2r = mr - ur;
            const y2i = mi - ui;
            yr[o + 2 * s] = y2r * w2r - y2i * w2i;
            yi[o + 2 * s] = y2r * w2i + y2i * w2r;
          }
        }
      } else if (p === 5) {
        const c1 = Math.cos((2 * Math.PI) / 5);
        const c2 = Math.cos((4 * Math.PI) / 5);
        const s1 = Math.sin((2 * Math.PI) / 5);
        const s2 = Math.sin((4 * Math.PI) / 5);
        for (let j = 0; j < m; j++) {
          const t = 4 * j;
          const i0 = s * j;
          const o0 = s * 5 * j;
          for (let q = 0; q < s; q++) {
            const a = i0 + q;
            const a0r = xr[a];
            const a0i = xi[a];
            const a1r = xr[a + sm];
            const a1i = xi[a + sm];
            const a2r = xr[a + 2 * sm];
            const a2i = xi[a + 2 * sm];
            const a3r = xr[a + 3 * sm];
            const a3i = xi[a + 3 * sm];
            const a4r = xr[a + 4 * sm];
            const a4i = xi[a + 4 * sm];
            const b1r = a1r + a4r;
            const b1i = a1i + a4i;
            const b2r = a2r + a3r;
            const b2i = a2i + a3i;
            const d1r = a1r - a4r;
            const d1i = a1i - a4i;
            const d2r = a2r - a3r;
            const d2i = a2i - a3i;
            // X1, X4 = A ∓ i·U; X2, X3 = C ∓ i·V
            const Ar = a0r + c1 * b1r + c2 * b2r;
            const Ai = a0i + c1 * b1i + c2 * b2i;
            const Ur = s1 * d1r + s2 * d2r;
            const Ui = s1 * d1i + s2 * d2i;
            const Cr = a0r + c2 * b1r + c1 * b2r;
            const Ci = a0i + c2 * b1i + c1 * b2i;
            const Vr = s2 * d1r - s1 * d2r;
            const Vi = s2 * d1i - s1 * d2i;
            const o = o0 + q;
            yr[o] = a0r + b1r + b2r;
            yi[o] = a0i + b1i + b2i;
            let zr = Ar + Ui;
            let zi = Ai - Ur;
            yr[o + s] = zr * twr[t] - zi * twi[t];
            yi[o + s] = zr * twi[t] + zi * twr[t];
            zr = Cr + Vi;
            zi = Ci - Vr;
            yr[o + 2 * s] = zr * twr[t + 1] - zi * twi[t + 1];
            yi[o + 2 * s] = zr * twi[t + 1] + zi * twr[t + 1];
            zr = Cr - Vi;
            zi = Ci + Vr;
            yr[o + 3 * s] = zr * twr[t + 2] - zi * twi[t + 2];
            yi[o + 3 * s] = zr * twi[t + 2] + zi * twr[t + 2];
            zr = Ar - Ui;
            zi = Ai + Ur;
            yr[o + 4 * s] = zr * twr[t + 3] - zi * twi[t + 3];
            yi[o + 4 * s] = zr * twi[t + 3] + zi * twr[t + 3];
          }
        }
      } else {
        // any other prime: its p-point DFT by definition, e^(−2πi·q/p) at q
        const cr = new Float64Array(p);
        const ci = new Float64Array(p);
        for (let k = 0; k < p; k++) {
          cr[k] = Math.cos((2 * Math.PI * k) / p);
          ci[k] = -Math.sin((2 * Math.PI * k) / p);
        }
        for (let j = 0; j < m; j++) {
          const i0 = s * j;
          const o0 = s * p * j;
          for (let q = 0; q < s; q++) {
            for (let k = 0; k < p; k++) {
              let sr = 0;
              let si = 0;
              for (let r = 0, e = 0; r < p; r++) {
                const xr0 = xr[i0 + q + r * sm];
                const xi0 = xi[i0 + q + r * sm];
                sr += xr0 * cr[e] - xi0 * ci[e];
                si += xr0 * ci[e] + xi0 * cr[e];
                e += k;
                if (e >= p) e -= p;
              }
              const o = o0 + q + k * s;
              if (k === 0) {
                yr[o] = sr;
                yi[o] = si;
              } else {
                const wr = twr[j * (p - 1) + k - 1];
                const wi = twi[j * (p - 1) + k - 1];
                yr[o] = sr * wr - si * wi;
                yi[o] = sr * wi + si * wr;
              }
            }
          }
        }
      }
      s *= p;
      let t = xr;
      xr = yr;
      yr = t;
      t = xi;
      xi = yi;
      yi = t;
    }
    return [xr, xi];
  }

  for (const d of dims) {
    const n = shape[d];
    if (n <= 1) continue;
    let stride = 1;
    for (let e = 0; e < d; e++) stride *= shape[e];
    const lines = count / n;
    const radices = radicesOf(n);
    const plan = radices === undefined ? undefined : stockhamPlan(n, radices);
    const chirp = radices === undefined ? chirpPlan(n) : undefined;
    // lines side by side: enough to make the innermost loops long, few enough to stay in cache
    const B = Math.max(1, Math.min(lines, 64, Math.floor(4096 / n)));
    const size = (chirp === undefined ? n : chirp.m) * B;
    const xr = new Float64Array(size);
    const xi = new Float64Array(size);
    const yr = new Float64Array(size);
    const yi = new Float64Array(size);
    const bases = new Int32Array(B);
    // ifft(x) = conj(fft(conj(x))) / n
    const sign = inverse ? -1 : 1;
    const scale = inverse ? 1 / n : 1;
    for (let first = 0; first < lines; first += B) {
      const lanes = Math.min(B, lines - first);
      // line L starts at (L mod stride) + n·stride·⌊L / stride⌋
      for (let b = 0; b < lanes; b++) {
        const L = first + b;
        const t = L % stride;
        bases[b] = t + n * (L - t);
      }
      if (lanes < B) {
        xr.fill(0);
        xi.fill(0);
      }
      for (let j = 0; j < n; j++) {
        const at = j * stride;
        const row = j * B;
        for (let b = 0; b < lanes; b++) {
          xr[row + b] = re[bases[b] + at];
          xi[row + b] = sign * im[bases[b] + at];
        }
      }
      let rr: Float64Array;
      let ri: Float64Array;
      if (chirp === undefined) {
        [rr, ri] = stockham(plan as Plan, xr, xi, yr, yi, B);
      } else {
        // Bluestein: (x·w) convolved with conj(w), through transforms of length m, times w
        const { m, wr, wi, br, bi, inner } = chirp;
        for (let j = 0; j < n; j++) {
          for (let b = 0; b < B; b++) {
            const e = j * B + b;
            const vr = xr[e];
            const vi = xi[e];
            xr[e] = vr * wr[j] - vi * wi[j];
            xi[e] = vr * wi[j] + vi * wr[j];
          }
        }
        xr.fill(0, n * B);
        xi.fill(0, n * B);
        let [ar, ai] = stockham(inner, xr, xi, yr, yi, B);
        // the convolution's transform, conjugated (the inverse through the forward transform)
        for (let k = 0; k < m; k++) {
          for (let b = 0; b < B; b++) {
            const e = k * B + b;
            const r = ar[e] * br[k] - ai[e] * bi[k];
            const i = ar[e] * bi[k] + ai[e] * br[k];
            ar[e] = r;
            ai[e] = -i;
          }
        }
        const [sr, si] = ar === xr ? [yr, yi] : [xr, xi];
        [ar, ai] = stockham(inner, ar, ai, sr, si, B);
        for (let j = 0; j < n; j++) {
          for (let b = 0; b < B; b++) {
            const e = j * B + b;
            const cr = ar[e] / m;
            const ci = -ai[e] / m;
            ar[e] = cr * wr[j] - ci * wi[j];
            ai[e] = cr * wi[j] + ci * wr[j];
          }
        }
        rr = ar;
        ri = ai;
      }
      for (let j = 0; j < n; j++) {
        const at = j * stride;
        const row = j * B;
        for (let b = 0; b < lanes; b++) {
          re[bases[b] + at] = rr[row + b] * scale;
          im[bases[b] + at] = sign * ri[row + b] * scale;
        }
      }
    }
  }

  const C = (dtype === 'complex64' ? Float32Array : Float64Array) as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer(2 * count * C.BYTES_PER_ELEMENT));
  for (let e = 0; e < count; e++) {
    data[2 * e] = re[e];
    data[2 * e + 1] = im[e];
  }
  const strides: number[] = [];
  let s = 1;
  for (let d = 0; d < rank; d++) {
    strides.push(s);
    s *= shape[d];
  }
  return { data, shape: [...shape], strides, offset: 0 };
}

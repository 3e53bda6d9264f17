// The kernel of `fft` and `ifft`: the discrete Fourier transform of a block along some of its
// dimensions, each line through an iterative radix-2 FFT when its length is a power of two and
// through Bluestein's chirp-z algorithm (a convolution done by radix-2 FFTs of a power-of-two
// length ≥ 2n − 1) otherwise, so every length costs O(n log n). Self-contained, so it travels to
// worker threads and processes as source text.
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

  // A radix-2 plan: the bit-reversal permutation and e^(−2πik/n) for k < n/2.
  type Radix2 = { n: number; rev: Int32Array; cos: Float64Array; sin: Float64Array };
  const radix2Plans = new Map<number, Radix2>();
  const radix2Plan = (n: number): Radix2 => {
    let plan = radix2Plans.get(n);
    if (plan !== undefined) return plan;
    const rev = new Int32Array(n);
    let bits = 0;
    while (1 << bits < n) bits++;
    for (let i = 0; i < n; i++) {
      let r = 0;
      for (let b = 0; b < bits; b++) if (i & (1 << b)) r |= 1 << (bits - 1 - b);
      rev[i] = r;
    }
    const cos = new Float64Array(n >> 1);
    const sin = new Float64Array(n >> 1);
    for (let k = 0; k < n >> 1; k++) {
      cos[k] = Math.cos((2 * Math.PI * k) / n);
      sin[k] = -Math.sin((2 * Math.PI * k) / n);
    }
    plan = { n, rev, cos, sin };
    radix2Plans.set(n, plan);
    return plan;
  };
  // The forward transform of (xr, xi), length a power of two, in place.
  const radix2 = (xr: Float64Array, xi: Float64Array, plan: Radix2) => {
    const { n, rev, cos, sin } = plan;
    for (let i = 0; i < n; i++) {
      const j = rev[i];
      if (j > i) {
        let t = xr[i];
        xr[i] = xr[j];
        xr[j] = t;
        t = xi[i];
        xi[i] = xi[j];
        xi[j] = t;
      }
    }
    for (let size = 2; size <= n; size <<= 1) {
      const half = size >> 1;
      const step = n / size;
      for (let start = 0; start < n; start += size) {
        for (let k = 0; k < half; k++) {
          const wr = cos[k * step];
          const wi = sin[k * step];
          const a = start + k;
          const b = a + half;
          const ur = xr[b] * wr - xi[b] * wi;
          const ui = xr[b] * wi + xi[b] * wr;
          xr[b] = xr[a] - ur;
          xi[b] = xi[a] - ui;
          xr[a] += ur;
          xi[a] += ui;
        }
      }
    }
  };
  // A Bluestein plan for length n: the chirp e^(−πik²/n) and the transformed conjugate chirp.
  type Chirp = {
    m: number;
    wr: Float64Array;
    wi: Float64Array;
    br: Float64Array;
    bi: Float64Array;
  };
  const chirpPlans = new Map<number, Chirp>();
  const chirpPlan = (n: number): Chirp => {
    let plan = chirpPlans.get(n);
    if (plan !== undefined) return plan;
    let m = 1;
    while (m < 2 * n - 1) m <<= 1;
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
    radix2(br, bi, radix2Plan(m));
    plan = { m, wr, wi, br, bi };
    chirpPlans.set(n, plan);
    return plan;
  };
  // The forward transform of (xr, xi), any length n, in place.
  const transform = (xr: Float64Array, xi: Float64Array, n: number) => {
    if (n <= 1) return;
    if ((n & (n - 1)) === 0) {
      radix2(xr, xi, radix2Plan(n));
      return;
    }
    const { m, wr, wi, br, bi } = chirpPlan(n);
    const ar = new Float64Array(m);
    const ai = new Float64Array(m);
    for (let k = 0; k < n; k++) {
      ar[k] = xr[k] * wr[k] - xi[k] * wi[k];
      ai[k] = xr[k] * wi[k] + xi[k] * wr[k];
    }
    const plan = radix2Plan(m);
    radix2(ar, ai, plan);
    // the convolution's transform, conjugated (the inverse through the forward transform)
    for (let k = 0; k < m; k++) {
      const r = ar[k] * br[k] - ai[k] * bi[k];
      const i = ar[k] * bi[k] + ai[k] * br[k];
      ar[k] = r;
      ai[k] = -i;
    }
    radix2(ar, ai, plan);
    for (let k = 0; k < n; k++) {
      const cr = ar[k] / m;
      const ci = -ai[k] / m;
      xr[k] = cr * wr[k] - ci * wi[k];
      xi[k] = cr * wi[k] + ci * wr[k];
    }
  };

  for (const d of dims) {
    const n = shape[d];
    if (n <= 1) continue;
    let stride = 1;
    for (let e = 0; e < d; e++) stride *= shape[e];
    const lr = new Float64Array(n);
    const li = new Float64Array(n);
    const sign = inverse ? -1 : 1;
    for (let base = 0; base < count; base++) {
      if (Math.floor(base / stride) % n !== 0) continue;
      // ifft(x) = conj(fft(conj(x))) / n
      for (let j = 0; j < n; j++) {
        lr[j] = re[base + j * stride];
        li[j] = sign * im[base + j * stride];
      }
      transform(lr, li, n);
      const scale = inverse ? 1 / n : 1;
      for (let j = 0; j < n; j++) {
        re[base + j * stride] = lr[j] * scale;
        im[base + j * stride] = sign * li[j] * scale;
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

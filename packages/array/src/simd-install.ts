// The SIMD kernels' loader and driver, self-contained so that it is spliced into the source
// text of each block kernel that uses it (kernel-link.ts) and travels with it to worker threads
// and processes. The WebAssembly module (scripts/simd-wat.mjs, assembled in the build) arrives
// as the base64 text `__DTASK_SIMD_WASM__` stands for.

/** The base64 bytes of the SIMD module, substituted when a kernel is linked. */
declare const __DTASK_SIMD_WASM__: string;

/** A strided 2-D operand: element `(i, j)` at `data[offset + i·rs + j·cs]`. */
export type Operand = [data: Float64Array | Float32Array, offset: number, rs: number, cs: number];

/** What the loaded SIMD module offers to the kernels. */
export interface SimdKernels {
  /**
   * `C ← beta·C + alpha·Σ A·B` over the pairs of `products` (`[m, k]·[k, n]` each), computed in
   * the precision of `float32` (true: f32x4) or Float64 (f64x2); with `lower`, only the
   * elements `(i, j)` with `i ≥ j` of `C` are written.
   */
  gemm(
    float32: boolean,
    m: number,
    n: number,
    products: [a: Operand, b: Operand, k: number][],
    alpha: number,
    beta: number,
    c: Operand,
    lower?: boolean,
  ): void;
  /**
   * The reduction `op` (`'sum'`, `'sumsq'`, `'sumabs'`, `'min'`, `'max'`, `'minabs'`,
   * `'maxabs'`) of the `n` contiguous elements of `data` from `offset`, in Float64 (float32
   * sums accumulated in Float64). Sums of no elements are 0; the others need `n ≥ 1`.
   */
  reduce(op: string, data: Float64Array | Float32Array, offset: number, n: number): number;
}

/**
 * The SIMD kernels of this runtime, loaded once and kept on `globalThis`; `null` where the
 * runtime's WebAssembly has no 128-bit SIMD or `DTASK_ARRAY_KERNELS=js` asks for the plain
 * JavaScript kernels.
 */
export function installSimd(): SimdKernels | null {
  const key = Symbol.for('dtask.array.simdKernels.v1');
  const g = globalThis as any;
  if (g[key] !== undefined) return g[key];
  const env = g.process?.env?.DTASK_ARRAY_KERNELS;
  const wasm = g.WebAssembly;
  let bytes: Uint8Array | undefined;
  if (env !== 'js' && typeof wasm === 'object') {
    const text = atob(__DTASK_SIMD_WASM__);
    bytes = new Uint8Array(text.length);
    for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
    if (!wasm.validate(bytes)) bytes = undefined;
  }
  if (bytes === undefined) {
    g[key] = null;
    return null;
  }
  const x = new wasm.Instance(new wasm.Module(bytes), {}).exports;
  const memory = x.memory;
  // Cache blocking (BLIS): a kc-deep panel of B (kc·NR in L1 per micro-panel), an mc × kc
  // block of A in L2 (256 KiB), C's block in memory.
  const KC = 256;
  let f64 = new Float64Array(memory.buffer);
  let f32 = new Float32Array(memory.buffer);
  const ensure = (bytesNeeded: number) => {
    const have = memory.buffer.byteLength;
    if (bytesNeeded > have) {
      memory.grow(Math.ceil((bytesNeeded - have) / 65536));
      f64 = new Float64Array(memory.buffer);
      f32 = new Float32Array(memory.buffer);
    }
  };
  const kernels: SimdKernels = {
    gemm(float32, m, n, products, alpha, beta, c, lower = false) {
      const es = float32 ? 4 : 8;
      const MR = float32 ? 8 : 4;
      const NR = 4;
      const MC = float32 ? 256 : 128;
      const run = float32 ? x.gemm_f32 : x.gemm_f64;
      const mp = Math.ceil(m / MR) * MR;
      const np = Math.ceil(n / NR) * NR;
      let kmax = 0;
      for (const pr of products) kmax = Math.max(kmax, Math.min(pr[2], KC));
      // Memory: C (mp × np) | A block (MC × KC) | B panel (KC × np), element offsets.
      const cAt = 0;
      const aAt = mp * np;
      const bAt = aAt + MC * KC;
      ensure((bAt + KC * np) * es);
      const w = float32 ? f32 : f64;
      w.fill(0, cAt, cAt + mp * np);
      for (const [a, b, k] of products) {
        const [ad, ao, ars, acs] = a;
        const [bd, bo, brs, bcs] = b;
        for (let pc = 0; pc < k; pc += KC) {
          const kc = Math.min(KC, k - pc);
          // B[pc … pc+kc, 0 … n) in panels of NR columns, zeros past n.
          let t = bAt;
          for (let jr = 0; jr < np; jr += NR) {
            for (let p = 0; p < kc; p++) {
              const row = bo + (pc + p) * brs;
              for (let q = 0; q < NR; q++) {
                const j = jr + q;
                w[t++] = j < n ? bd[row + j * bcs] : 0;
              }
            }
          }
          for (let ic = 0; ic < mp; ic += MC) {
            const mc = Math.min(MC, mp - ic);
            // A[ic … ic+mc, pc … pc+kc) in panels of MR rows, zeros past m.
            t = aAt;
            for (let ir = ic; ir < ic + mc; ir += MR) {
              const full = ir + MR <= m;
              for (let p = 0; p < kc; p++) {
                const col = ao + (pc + p) * acs;
                if (full && ars === 1) {
                  const s = col + ir;
                  for (let r = 0; r < MR; r++) w[t++] = ad[s + r];
                } else {
                  for (let r = 0; r < MR; r++) {
                    const i = ir + r;
                    w[t++] = i < m ? ad[col + i * ars] : 0;
                  }
                }
              }
            }
            run(mc, np, kc, aAt * es, bAt * es, (cAt + ic) * es, mp);
          }
        }
      }
      const [cd, co, crs, ccs] = c;
      for (let j = 0; j < n; j++) {
        const src = cAt + j * mp;
        const dst = co + j * ccs;
        const i0 = lower ? j : 0;
        if (beta === 0) for (let i = i0; i < m; i++) cd[dst + i * crs] = alpha * w[src + i];
        else if (beta === 1 && alpha === 1)
          for (let i = i0; i < m; i++) cd[dst + i * crs] += w[src + i];
        else if (beta === 1 && alpha === -1)
          for (let i = i0; i < m; i++) cd[dst + i * crs] -= w[src + i];
        else
          for (let i = i0; i < m; i++)
            cd[dst + i * crs] = beta * cd[dst + i * crs] + alpha * w[src + i];
      }
    },
    reduce(op, data, offset, n) {
      // Through the module's memory a chunk at a time (a copy, then one pass in SIMD), the
      // partial results folded in order.
      const float32 = data instanceof Float32Array;
      const run = x[`reduce_${op}_${float32 ? 'f32' : 'f64'}`];
      const CHUNK = 16384;
      ensure(CHUNK * 8);
      const w = float32 ? f32 : f64;
      const sum = op.startsWith('sum');
      const max = op.startsWith('max');
      let acc = 0;
      for (let i = 0; i < n; i += CHUNK) {
        const len = Math.min(CHUNK, n - i);
        w.set(data.subarray(offset + i, offset + i + len), 0);
        const r = run(0, len);
        acc = i === 0 ? r : sum ? acc + r : max ? Math.max(acc, r) : Math.min(acc, r);
      }
      return acc;
    },
  };
  g[key] = kernels;
  return kernels;
}

// The stencil block kernel's SIMD sweep: where a kernel has a sweep program (see
// stencil-simd-program.ts) and the runtime has the SIMD module, the block's padded inputs are
// laid out in the module's memory and the program runs over them in f64x2, then the result is
// copied out. Self-contained (the SIMD loader spliced in), so it travels inside the block
// kernel's source to worker threads and processes.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { installSimd } from './simd-install.js';
import type { StencilPlan } from './stencil-plan.js';
import type { Prepared } from './stencil-prepared.js';

declare const __DTASK_SIMD__: typeof installSimd;

/** A block's SIMD sweep under way (see `stencilSimd`). */
export interface StencilSimdRun {
  /** Input `i`'s padded buffer (its layout `total` elements, strides `PS`), in the module's memory. */
  buffer(i: number): Float64Array;
  /** Copies `block` (input `i`'s own block) whole into its padded buffer, `radius` in. */
  own(i: number, block: Block): void;
  /**
   * Lays out every input: an input read only at offset 0 from `own[i]` (contiguous, as the
   * loop reads it); a padded one (`fills`) from its first copy (its own block) whole, then its
   * other copies by `copy` (the halo strips) and its edges by `edge`.
   */
  fill(
    own: ArrayLike<number>[],
    fills: Prepared['fills'],
    copy: (
      src: Block,
      buf: Float64Array,
      origin: number[],
      frame: number[] | null,
      PS: number[],
    ) => void,
    edge: (buf: Float64Array, input: number, d: number, high: boolean) => void,
  ): void;
  /** Sweeps the filled buffers and writes the result into `result` (contiguous, column-major). */
  finish(result: Block): void;
}

function stencilSimdKernel(plan: StencilPlan, total: number, PS: number[]): StencilSimdRun | null {
  const program = plan.simd;
  if (program == null || plan.module !== null) return null;
  if (plan.dtype !== 'float64' && plan.dtype !== 'float32') return null;
  const { shape, radius } = plan;
  const nd = shape.length;
  let first = 0;
  let n = 1;
  for (let d = 0; d < nd; d++) {
    first += radius[d] * PS[d];
    n *= shape[d];
  }
  // Blocks with a shorter first dimension run the loop (where the sweep did not pay).
  if (n === 0 || shape[0] < 8) return null;
  const simd = __DTASK_SIMD__();
  if (simd === null) return null;
  // The area: each input's padded buffer (`stride` elements apart), the result (contiguous),
  // a stage where an own block is copied whole before its columns are spread into its buffer.
  const inputs = plan.inputs.length;
  const stride = total + 2 + (total % 2);
  const out = inputs * stride;
  const stage = out + n + 2;
  const area = simd.sweepArea(stage + n);
  // Read k of a position p (padded index) is at byte p·8 + offsets[k] - first·8: the sweep's
  // `p` is the column's first position less `first`, so that every offset is ≥ 0.
  const offsets = plan.sites.map((site) => {
    let at = site.input * stride + first;
    for (let d = 0; d < nd; d++) at += Number(site.args[d]) * PS[d];
    return at * 8;
  });
  const n0 = shape[0];
  const n1 = nd > 1 ? shape[1] : 1;
  const column = nd > 1 ? PS[1] * 8 : 0;
  const fns = simd.sweepModule(program, offsets, n0, column);
  // Calls `f(padded, own)` per slab (dimensions 0 and 1) of the block: its first element's
  // index in the padded layout and in the block's contiguous layout.
  const slabs = (f: (padded: number, own: number) => void) => {
    const idx = new Array<number>(nd).fill(0);
    for (let k = 0; k < n; k += n0 * n1) {
      let p = radius[0] + (nd > 1 ? radius[1] * PS[1] : 0);
      let o = 0;
      let m = n0 * n1;
      for (let d = 2; d < nd; d++) {
        p += (radius[d] + idx[d]) * PS[d];
        o += idx[d] * m;
        m *= shape[d];
      }
      f(p, o);
      for (let d = 2; d < nd; d++) {
        if (++idx[d] < shape[d]) break;
        idx[d] = 0;
      }
    }
  };
  return {
    buffer: (i) => area.subarray(i * stride, i * stride + total),
    own(i, block) {
      const base = i * stride;
      const { data, strides, offset } = block;
      let contiguous = strides[0] === 1;
      for (let d = 1, m = n0; d < nd && contiguous; m *= shape[d], d++)
        contiguous = strides[d] === m || shape[d] === 1;
      if (contiguous) {
        // Whole into the stage natively, then its columns spread in the module.
        area.set(data.subarray(offset, offset + n), stage);
        slabs((p, o) => fns.g((stage + o) * 8, (base + p) * 8, n1));
        return;
      }
      const idx = new Array<number>(nd).fill(0);
      for (let k = 0; k < n; k += n0) {
        let s = offset;
        let p = base + radius[0];
        for (let d = 1; d < nd; d++) {
          s += idx[d] * strides[d];
          p += (radius[d] + idx[d]) * PS[d];
        }
        for (let q = 0; q < n0; q++) area[p + q] = data[s + q * strides[0]];
        for (let d = 1; d < nd; d++) {
          if (++idx[d] < shape[d]) break;
          idx[d] = 0;
        }
      }
    },
    fill(own, fills, copy, edge) {
      const contiguous: number[] = [];
      for (let d = 0, m = 1; d < nd; m *= shape[d], d++) contiguous.push(m);
      const padded = new Set(fills.map((f) => f.input));
      for (let i = 0; i < own.length; i++) {
        if (padded.has(i)) continue;
        const data = own[i] as Float64Array;
        this.own(i, { data, shape, strides: contiguous, offset: 0 });
      }
      for (const { input, copies, edges } of fills) {
        this.own(input, copies[0].src);
        const buf = this.buffer(input);
        for (let c = 1; c < copies.length; c++) {
          const { src, origin, frame } = copies[c];
          copy(src, buf, origin, frame, PS);
        }
        for (const { d, high } of edges) edge(buf, input, d, high);
      }
    },
    finish(result) {
      slabs((p, o) => fns.f((p - first) * 8, (out + o) * 8, n1));
      result.data.set(area.subarray(out, out + n));
      // How many blocks this thread swept in SIMD (a task may read it to see which ran).
      const g = globalThis as unknown as { __dtaskStencilSimdSweeps?: number };
      g.__dtaskStencilSimdSweeps = (g.__dtaskStencilSimdSweeps ?? 0) + 1;
    },
  };
}

/**
 * The SIMD sweep of one stencil block (`plan`, padded layout of `total` elements with strides
 * `PS`), or null where the JavaScript loop runs instead: no sweep program (a kernel that is not
 * arithmetic of its reads, a module's kernel), an element type other than float64 and float32,
 * a first dimension under 8 elements, or a runtime without the
 * SIMD module (or `DTASK_ARRAY_KERNELS=js`). The program computes in Float64 what the loop
 * computes, operation for operation: the same values.
 */
export const stencilSimd: (
  plan: StencilPlan,
  total: number,
  PS: number[],
) => StencilSimdRun | null = linkKernel(stencilSimdKernel, 'stencilSimd');

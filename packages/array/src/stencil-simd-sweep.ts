// The stencil block kernel's SIMD sweep: where a kernel has a sweep program (see
// stencil-simd-program.ts) and the runtime has the SIMD module, the block's padded inputs are
// laid out in the module's memory and the program runs over them in f64x2, then the result is
// copied out. Self-contained (the SIMD loader spliced in), so it travels inside the block
// kernel's source to worker threads and processes.
import { linkKernel } from './kernel-link.js';
import type { installSimd } from './simd-install.js';
import type { StencilPlan } from './stencil-plan.js';
import type { StencilSimdRun } from './stencil-prepared.js';

declare const __DTASK_SIMD__: typeof installSimd;

function stencilSimdKernel(plan: StencilPlan, total: number, PS: number[]): StencilSimdRun | null {
  const program = plan.simd;
  if (program == null || plan.module !== null) return null;
  if (plan.dtype !== 'float64' && plan.dtype !== 'float32') return null;
  // Kept per plan on this thread (a sweeps task keeps its plans for all its steps and for later
  // calls laid out alike), while its area's memory is the module's memory of now: a kernel that
  // grew the memory since left the area detached (length 0), and the run is made again.
  const gk = globalThis as unknown as {
    __dtaskStencilSimdRuns?: WeakMap<
      StencilPlan,
      { run: StencilSimdRun | null; area: Float64Array | null }
    >;
  };
  const runs = (gk.__dtaskStencilSimdRuns ??= new WeakMap());
  const had = runs.get(plan);
  if (had !== undefined && (had.area === null || had.area.length !== 0)) return had.run;
  const { shape, radius } = plan;
  const nd = shape.length;
  let first = 0;
  let n = 1;
  for (let d = 0; d < nd; d++) {
    first += radius[d] * PS[d];
    n *= shape[d];
  }
  // Blocks with a shorter first dimension run the loop (where the sweep did not pay).
  const simd = n === 0 || shape[0] < 8 ? null : __DTASK_SIMD__();
  if (simd === null) {
    runs.set(plan, { run: null, area: null });
    return null;
  }
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
  // Each slab (dimensions 0 and 1) of the block: its first element's index in the padded
  // layout and in the block's contiguous layout, listed once.
  const slabPadded: number[] = [];
  const slabOwn: number[] = [];
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
    slabPadded.push(p);
    slabOwn.push(o);
    for (let d = 2; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
  }
  const slabs = slabPadded.length;
  const contiguous: number[] = [];
  for (let d = 0, m = 1; d < nd; m *= shape[d], d++) contiguous.push(m);
  const buffers = plan.inputs.map((_, i) => area.subarray(i * stride, i * stride + total));
  const result = area.subarray(out, out + n);
  const staged = area.subarray(stage, stage + n);
  const padded = plan.inputs.map((input) => input.padded);
  // Copies `data` (a block of `shape` at `offset` with `strides`) whole into input `i`'s padded
  // buffer, `radius` in: contiguous, natively into the stage and its columns spread in the
  // module; else element by element.
  const own = (i: number, data: ArrayLike<number>, strides: readonly number[], offset: number) => {
    const base = i * stride;
    let whole = strides[0] === 1;
    for (let d = 1, m = n0; d < nd && whole; m *= shape[d], d++)
      whole = strides[d] === m || shape[d] === 1;
    if (whole) {
      if (data instanceof Float64Array) simd.copyIn(data, offset, n, stage * 8);
      else staged.set((data as Float32Array).subarray(offset, offset + n));
      for (let k = 0; k < slabs; k++)
        fns.g((stage + slabOwn[k]) * 8, (base + slabPadded[k]) * 8, n1);
      return;
    }
    idx.fill(0);
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
  };
  const run: StencilSimdRun = {
    area,
    fill(ownData, fills, copy, edge, plan, prep) {
      for (let i = 0; i < ownData.length; i++) {
        if (!padded[i]) own(i, ownData[i], contiguous, 0);
      }
      for (let f = 0; f < fills.length; f++) {
        const { input, copies, edges } = fills[f];
        const src = copies[0].src;
        own(input, src.data, src.strides, src.offset);
        const buf = buffers[input];
        for (let c = 1; c < copies.length; c++) {
          const { src, origin, frame } = copies[c];
          copy(src, buf, origin, frame, PS);
        }
        for (let e = 0; e < edges.length; e++)
          edge(buf, plan.inputs[input], edges[e].d, edges[e].high, plan, prep);
      }
    },
    finish(into) {
      for (let k = 0; k < slabs; k++)
        fns.f((slabPadded[k] - first) * 8, (out + slabOwn[k]) * 8, n1);
      if (into.data instanceof Float64Array) simd.copyOut(into.data, 0, n, out * 8);
      else into.data.set(result);
      // How many blocks this thread swept in SIMD (a task may read it to see which ran).
      const g = globalThis as unknown as { __dtaskStencilSimdSweeps?: number };
      g.__dtaskStencilSimdSweeps = (g.__dtaskStencilSimdSweeps ?? 0) + 1;
    },
  };
  runs.set(plan, { run, area });
  return run;
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

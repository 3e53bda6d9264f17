// The stencil block kernel's SIMD sweep: where a kernel has a sweep program (see
// stencil-simd-program.ts) and the runtime has the SIMD module, the block's padded inputs are
// laid out in the module's memory and the program runs over them in f64x2, then the result is
// copied out. Self-contained (the SIMD loader spliced in), so it travels inside the block
// kernel's source to worker threads and processes.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { installSimd } from './simd-install.js';
import type { StencilPlan } from './stencil-plan.js';
import type { Prepared, StencilSimdRun } from './stencil-prepared.js';

declare const __DTASK_SIMD__: typeof installSimd;

/** A block's result kept in a thread's SIMD memory between the steps of a call (see `Kept`). */
interface Slot {
  /** Its first element's index in the memory, and how many it holds. */
  at: number;
  n: number;
  /** The block's elements it holds the values of (null: none yet). */
  holder: object | null;
  /** `Kept.gen` when it was made: from another generation, it is gone. */
  gen: number;
  /** The SIMD kernels' `sweepClobbers()` when it was written: another kernel may have since. */
  clobbers: number;
}

/**
 * The results a thread keeps in its SIMD memory past the sweeps' areas (from `base`), for the
 * call of `stencilSteps` whose epoch its sweeps task sets; a new epoch, or an area reaching
 * past `base`, starts a new generation and forgets the slots of the last.
 */
interface Kept {
  gen: number;
  epoch: object | null;
  base: number;
  next: number;
  /** Per block's elements (its typed array), the slot last written with its values. */
  slots: WeakMap<object, Slot>;
  /** Per block's elements, its first and last rows as this thread last wrote them (see `Rims`). */
  rims: WeakMap<object, Rims>;
}

/**
 * A two-dimensional block's first and last `r` rows, column by column (`top[j·r + i]`), in its
 * own element type, copied when this thread wrote it in `epoch`: what a neighbour's sweep on
 * the thread reads as its halo along dimension 0, an element per column that would otherwise
 * be read from shared memory, a cache line each.
 */
interface Rims {
  epoch: object;
  r: number;
  n0: number;
  n1: number;
  top: Float64Array | Float32Array;
  bottom: Float64Array | Float32Array;
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
  const need = stage + n;
  let area = simd.sweepArea(need);
  // Results kept in the memory between sweeps (see `Kept`), past every area: a block this
  // thread wrote at one step of `stencilSteps` is laid out for the next from there, not read
  // back from shared memory. Only while the thread's sweeps task marks a call (its epoch).
  const gk = globalThis as unknown as { __dtaskStencilKept?: Kept; __dtaskStencilEpoch?: object };
  const kept = (gk.__dtaskStencilKept ??= {
    gen: 0,
    epoch: null,
    base: 0,
    next: 0,
    slots: new WeakMap(),
    rims: new WeakMap(),
  });
  if (need + 2 > kept.base) {
    kept.gen++;
    kept.base = need + 2 + (need % 2);
    kept.next = kept.base;
  }
  // At most this many elements of results kept per thread (64 MiB); past it, blocks go back
  // and forth through shared memory as before.
  const KEPT = 8_388_608;
  let consumed: Slot | null = null;
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
  // Per input laid out: where its padded buffer starts, its own block's elements as one
  // contiguous view (copied natively) or, when strided, the block (copied element by
  // element), and for a padded input its strips and edges. Made at the first sweep and kept
  // while the run is given the same `fills` (the block kernel keeps a run per block).
  type Layout = {
    input: number;
    view: ArrayLike<number> | null;
    block: Block;
    copies: Prepared['fills'][number]['copies'];
    /** Per copy, whether it is a neighbour's first rows (1), last rows (2), or neither (0). */
    rows: number[];
    edges: Prepared['fills'][number]['edges'];
  };
  let layouts: Layout[] = [];
  let laidFor: Prepared['fills'] | null = null;
  // Per input, its padded buffer as a view of the area (made again once the memory grew: a
  // view of the old buffer is then empty).
  let buffers: Float64Array[] = [];
  const refresh = (upTo = need) => {
    if (area.length >= upTo + 2) return;
    area = simd.sweepArea(Math.max(upTo, need));
    buffers = [];
  };
  const own = (i: number, view: ArrayLike<number> | null, block: Block, epoch: object | null) => {
    const base = i * stride;
    if (view !== null && epoch !== null && block.offset === 0) {
      // Written by this thread at an earlier step of this call, and still in the memory.
      const slot = kept.slots.get(block.data);
      if (
        slot !== undefined &&
        slot.holder === block.data &&
        slot.gen === kept.gen &&
        kept.epoch === epoch &&
        slot.n === n &&
        slot.clobbers === simd.sweepClobbers()
      ) {
        refresh(slot.at + n);
        for (let s = 0; s < slabs; s++)
          fns.g((slot.at + slabOwn[s]) * 8, (base + slabPadded[s]) * 8, n1);
        consumed ??= slot;
        return;
      }
    }
    if (view !== null) {
      // Whole into the stage natively, then its columns spread in the module.
      area.set(view, stage);
      for (let s = 0; s < slabs; s++)
        fns.g((stage + slabOwn[s]) * 8, (base + slabPadded[s]) * 8, n1);
      return;
    }
    const { data, strides, offset } = block;
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
  return {
    fill(ownData, fills, copy, edge) {
      refresh();
      consumed = null;
      const epoch = gk.__dtaskStencilEpoch ?? null;
      if (laidFor !== fills) {
        laidFor = fills;
        layouts = [];
        const padded = new Set(fills.map((f) => f.input));
        for (let i = 0; i < ownData.length; i++) {
          if (padded.has(i)) continue;
          const data = ownData[i] as Float64Array;
          const block = { data, shape, strides: contiguous, offset: 0 };
          layouts.push({
            input: i,
            view: data.subarray(0, n),
            block,
            copies: [],
            rows: [],
            edges: [],
          });
        }
        for (const { input, copies, edges } of fills) {
          const block = copies[0].src;
          const { data, strides, offset } = block;
          let whole = strides[0] === 1;
          for (let d = 1, m = n0; d < nd && whole; m *= shape[d], d++)
            whole = strides[d] === m || shape[d] === 1;
          const view = whole ? data.subarray(offset, offset + n) : null;
          // A strip of rows of a whole neighbouring block (contiguous, from its start): its
          // first or last rows, which the neighbour's rims may hold.
          const rows = copies.map(({ src }, c) => {
            if (c === 0 || nd !== 2 || src.strides[0] !== 1 || src.shape[1] !== n1) return 0;
            if (src.offset === 0) return 1;
            return src.offset === src.strides[1] - src.shape[0] ? 2 : 0;
          });
          layouts.push({ input, view, block, copies, rows, edges });
        }
      }
      for (let l = 0; l < layouts.length; l++) {
        const { input, view, block, copies, rows, edges } = layouts[l];
        own(input, view, block, epoch);
        if (copies.length === 0) continue;
        const buf = (buffers[input] ??= area.subarray(input * stride, input * stride + total));
        for (let c = 1; c < copies.length; c++) {
          const { src, origin, frame } = copies[c];
          const rim = rows[c] !== 0 && epoch !== null ? kept.rims.get(src.data) : undefined;
          if (
            rim !== undefined &&
            rim.epoch === epoch &&
            rim.r === src.shape[0] &&
            rim.n0 === src.strides[1] &&
            rim.n1 === n1
          ) {
            // The neighbour's rows as this thread wrote them in this call.
            const from = rows[c] === 1 ? rim.top : rim.bottom;
            const r = rim.r;
            for (let j = 0, t = origin[0] + origin[1] * PS[1]; j < n1; j++, t += PS[1])
              for (let i = 0; i < r; i++) buf[t + i] = from[j * r + i];
            continue;
          }
          copy(src, buf, origin, frame, PS);
        }
        for (let e = 0; e < edges.length; e++) edge(buf, input, edges[e].d, edges[e].high);
      }
    },
    finish(result) {
      refresh();
      // Where the result goes: a slot kept for the next step (the one a block just laid out
      // came from, whose values this sweep no longer needs, or this block's own, or a new
      // one) while a sweeps task marks the call and it is float64 (float32 results are
      // rounded on the way out), else the area's.
      const epoch = gk.__dtaskStencilEpoch ?? null;
      const data = result.data;
      let target = out;
      let slot: Slot | null = null;
      if (
        epoch !== null &&
        data instanceof Float64Array &&
        result.offset === 0 &&
        data.length === n
      ) {
        if (kept.epoch !== epoch) {
          kept.gen++;
          kept.epoch = epoch;
          kept.next = kept.base;
        }
        const before = kept.slots.get(data);
        if (consumed !== null && consumed.gen === kept.gen) slot = consumed;
        else if (before !== undefined && before.gen === kept.gen && before.holder === data)
          slot = before;
        else if (kept.next + n + 2 <= kept.base + KEPT) {
          slot = { at: kept.next, n, holder: null, gen: kept.gen, clobbers: 0 };
          kept.next += n + 2 + (n % 2);
        }
        if (slot !== null) {
          refresh(slot.at + n);
          target = slot.at;
        }
      }
      consumed = null;
      for (let s = 0; s < slabs; s++)
        fns.f((slabPadded[s] - first) * 8, (target + slabOwn[s]) * 8, n1);
      data.set(area.subarray(target, target + n));
      if (slot !== null) {
        slot.holder = data;
        slot.clobbers = simd.sweepClobbers();
        kept.slots.set(data, slot);
      } else kept.slots.delete(data);
      const r0 = radius[0];
      if (epoch !== null && nd === 2 && result.offset === 0 && data.length === n && r0 <= n0) {
        // Its first and last rows, while they are in the cache, for its neighbours here.
        let rim = kept.rims.get(data);
        if (rim === undefined || rim.r !== r0 || rim.n0 !== n0 || rim.n1 !== n1) {
          const C = data.constructor as Float64ArrayConstructor;
          rim = { epoch, r: r0, n0, n1, top: new C(r0 * n1), bottom: new C(r0 * n1) };
          kept.rims.set(data, rim);
        }
        rim.epoch = epoch;
        const { top, bottom } = rim;
        for (let j = 0, o = target; j < n1; j++, o += n0)
          for (let i = 0; i < r0; i++) {
            top[j * r0 + i] = area[o + i];
            bottom[j * r0 + i] = area[o + n0 - r0 + i];
          }
      } else kept.rims.delete(data);
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

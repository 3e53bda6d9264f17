// Blocks of one thread's stencil step that sit one below the other (along dimension 0), swept
// as one padded column in SIMD. Self-contained (the SIMD loader spliced in), so it travels
// inside the sweeps task's source to worker threads.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import type { BytePair, installSimd, SweepFunctions } from './simd-install.js';
import { followBlocks } from './stencil-follow-blocks.js';
import type { StencilPlan } from './stencil-plan.js';
import type { FillEdge, Prepared } from './stencil-prepared.js';
import type { Stacker, SweepArgs } from './stencil-sweeps-runner.js';

declare const __DTASK_SIMD__: typeof installSimd;
declare const __DTASK_LINK_follow__: typeof followBlocks;

/** One block of a `BlockStack`: what its part of the stack's sweep reads and writes. */
export interface StackPart {
  /**
   * Per input: the block it reads whole (its memory read at each sweep), where its elements
   * start and whether they are contiguous (column-major from there).
   */
  own: { block: Block; strides: readonly number[]; offset: number; contiguous: boolean }[];
  /** Its halo strips but the rows the blocks next to it in the stack give: per padded input. */
  copies: { input: number; src: Block; origin: number[] }[];
  /**
   * The same strips as numbers, 7 a strip: its input, the first position it writes in that
   * input's padded buffer, the first element it reads, its strides and its shape (two
   * dimensions); and each strip's memory, as its view holds it this call (`copies[c].src.data`,
   * read again whenever the views follow their blocks). Copied by the stack's sweep, which reads
   * no object of a strip but its memory: a strip's view, shape and strides, read at every sweep
   * of every block, were cache misses of their own beside the strip's elements.
   */
  stripAt: number[];
  stripData: Block['data'][];
  /** The edges of the array it touches (per padded input, in the block kernel's order). */
  edges: { input: number; d: number; high: boolean; at: StencilPlan['inputs'][number] }[];
  /** Its plan and preparation (its padded geometry), as `FillEdge` reads them. */
  plan: StencilPlan;
  prep: Prepared;
  /** The block it writes, and its kernel's arguments (as the layout lists them). */
  out: Block;
  item: SweepArgs;
  /**
   * The memcpy views of its copies while the stack's SIMD memory holds (`SimdKernels.bytePair`):
   * per input, its block and its stage (null: copied another way); its result and the block it
   * writes. Undefined until its first sweep in that memory, and again once its blocks hold
   * other memory (`current` looks once per call): a sweep copies by them without reading a
   * block or its memory.
   */
  pairs: (BytePair | null)[] | undefined;
  outPair: BytePair | null | undefined;
}

/**
 * Blocks of one step on one thread, one below the other along dimension 0, swept in turn as one
 * (see `stencilStacker`): made once per call and layout from the blocks' own preparations.
 */
export interface BlockStack {
  /** A block's padded layout (every block's): its strides and element count. */
  PS: number[];
  total: number;
  /** Each block's rows (`n0`) and columns (`n1`), and the halo's width. */
  n0: number;
  n1: number;
  r0: number;
  r1: number;
  /** The blocks, top to bottom. */
  parts: StackPart[];
  /** The padded inputs (their indices), and per input whether it is padded. */
  padded: number[];
  isPadded: boolean[];
  /** How many inputs. */
  inputs: number;
  /** The sweep program and the byte offsets of its reads (`SimdKernels.sweepModule`). */
  program: NonNullable<StencilPlan['simd']>;
  offsets: number[];
  /**
   * Where in the SIMD memory: the inputs' padded buffers (`stride` elements apart, as the block
   * kernel lays them out), the result, then a stage per input (`n0 · n1 + 2` elements apart).
   */
  stride: number;
  out: number;
  stage: number;
  /** The position, in a padded buffer, of a block's first element. */
  first: number;
  /** The SIMD memory's view while it holds (detached once a kernel grew the memory). */
  area: Float64Array | null;
  /** Per input, its padded buffer in `area`. */
  buffers: Float64Array[];
  fns: SweepFunctions | null;
}

/**
 * The stacker of a thread's stencil sweeps, made once per thread and kept. Items of a step that
 * the block kernel has prepared and swept in SIMD (float64, two dimensions, the same kernel and
 * block shape), written one below the other along dimension 0 and each reading the one above
 * as its upper halo, form a stack, swept block by block in the block kernel's buffers: the
 * rows between two blocks (one element per column, cut from another block's memory) are taken
 * from the block next to it in the SIMD memory (the one above as laid out, the one below as
 * staged), in the cache, and the stack's strips, edges and per-block steps are found once per
 * call, not at every sweep of every block. Each block is swept as its own sweep would (the same buffers,
 * program and module, reads and order: the same values).
 */
function stencilStackerKernel(): Stacker<BlockStack> {
  const follow = __DTASK_LINK_follow__;
  let simdKernels: NonNullable<ReturnType<typeof installSimd>> | undefined;
  // The kept preparation of an item, where the block kernel swept it in SIMD: else null.
  const preparedOf = (item: SweepArgs): Prepared | null => {
    const [plan, out] = item;
    if (out === null || plan.module !== null || plan.shape.length !== 2) return null;
    if (!(out.data instanceof Float64Array)) return null;
    if (plan.dtype !== 'float64' || plan.simd == null || plan.key === undefined) return null;
    const g = globalThis as unknown as { __dtaskStencilPrepared?: WeakMap<Block, Prepared[]> };
    const kept = g.__dtaskStencilPrepared?.get(out);
    for (let i = 0; kept !== undefined && i < kept.length; i++) {
      const p = kept[i];
      if (p.plan !== plan || p.blocks.length !== item.length - 2) continue;
      let same = true;
      for (let a = 2; a < item.length && same; a++) same = p.blocks[a - 2] === item[a];
      if (!same || p.simd == null) continue;
      for (const block of p.ownBlocks) if (!(block.data instanceof Float64Array)) return null;
      return p;
    }
    return null;
  };
  // Whether `b`'s block sits right below `a`'s, with the same kernel and shape, and `b` reads
  // `a`'s own blocks as its upper halo.
  const below = (a: Prepared, b: Prepared): boolean => {
    const [pa, pb] = [a.plan, b.plan];
    if (pa.key !== pb.key || pa.inputs.length !== pb.inputs.length) return false;
    if (pb.start[1] !== pa.start[1] || pb.start[0] !== pa.start[0] + pa.shape[0]) return false;
    if (pa.shape[0] < pa.radius[0]) return false;
    if (a.fills.length !== b.fills.length) return false;
    for (let f = 0; f < a.fills.length; f++) {
      const input = a.fills[f].input;
      if (b.fills[f].input !== input) return false;
      const ia = pa.inputs[input];
      const ib = pb.inputs[input];
      if (ia.high[0] || ib.low[0] || ia.low[1] !== ib.low[1] || ia.high[1] !== ib.high[1]) {
        return false;
      }
      // The rows of `b` above it are cut from `a`'s own block of this input, and those of `a`
      // below it from `b`'s.
      const rows = (p: Prepared, side: number, from: Block): boolean => {
        for (const copy of p.fills[f].copies.slice(1)) {
          if (copy.origin[0] !== side || copy.origin[1] !== p.plan.radius[1]) continue;
          const strip = p.strips.find((s) => s.view === copy.src);
          if (strip === undefined || strip.parent !== from) return false;
        }
        return true;
      };
      const [r0, n0] = [pa.radius[0], pa.shape[0]];
      if (!rows(b, 0, a.fills[f].copies[0].src)) return false;
      if (!rows(a, r0 + n0, b.fills[f].copies[0].src)) return false;
    }
    return true;
  };
  const make = (preps: Prepared[], items: SweepArgs[]): BlockStack => {
    const top = preps[0];
    const plan = top.plan;
    const [n0, n1] = plan.shape;
    const [r0, r1] = plan.radius;
    const S = preps.length;
    const parts = preps.map((p, k): StackPart => {
      // An input read with a halo reads its block where it is; one read only at offset 0
      // reads it contiguous (as the block kernel's loop does).
      const own = plan.inputs.map((input, i) => {
        const block = p.ownBlocks[i];
        const strides = input.padded ? block.strides : [1, n0];
        const offset = input.padded ? block.offset : 0;
        return { block, strides, offset, contiguous: strides[0] === 1 && strides[1] === n0 };
      });
      const copies: StackPart['copies'] = [];
      const edges: StackPart['edges'] = [];
      for (const fill of p.fills) {
        for (let c = 1; c < fill.copies.length; c++) {
          const { src, origin } = fill.copies[c];
          // The rows above and below come from the blocks next to it in the stack.
          if (
            origin[1] === r1 &&
            ((origin[0] === 0 && k > 0) || (origin[0] === r0 + n0 && k < S - 1))
          ) {
            continue;
          }
          copies.push({ input: fill.input, src, origin });
        }
        const at = p.plan.inputs[fill.input];
        for (const { d, high } of fill.edges) edges.push({ input: fill.input, d, high, at });
      }
      const stripAt: number[] = [];
      for (const { input, src, origin } of copies) {
        stripAt.push(
          input,
          origin[0] + origin[1] * top.PS[1],
          src.offset,
          src.strides[0],
          src.strides[1],
          src.shape[0],
          src.shape[1],
        );
      }
      return {
        own,
        copies,
        stripAt,
        stripData: copies.map((copy) => copy.src.data),
        edges,
        plan: p.plan,
        prep: p,
        out: items[k][1] as Block,
        item: items[k],
        pairs: undefined,
        outPair: undefined,
      };
    });
    const { PS, total } = top;
    const n = n0 * n1;
    const inputs = plan.inputs.length;
    const stride = total + 2 + (total % 2);
    const out = inputs * stride;
    const first = r0 + r1 * PS[1];
    return {
      PS,
      total,
      n0,
      n1,
      r0,
      r1,
      parts,
      padded: top.fills.map((fill) => fill.input),
      isPadded: plan.inputs.map((input) => input.padded),
      inputs,
      program: plan.simd as NonNullable<StencilPlan['simd']>,
      // The block kernel's own (simd-sweep's): the module made for its blocks serves.
      offsets: plan.sites.map((site) => {
        let at = site.input * stride + first;
        for (let d = 0; d < 2; d++) at += Number(site.args[d]) * PS[d];
        return at * 8;
      }),
      stride,
      out,
      stage: out + n + 2,
      first,
      area: null,
      buffers: [],
      fns: null,
    };
  };
  // A part's edges, its sweep and its write.
  const finish = (
    stack: BlockStack,
    k: number,
    simd: NonNullable<ReturnType<typeof installSimd>>,
    fns: SweepFunctions,
    edge: FillEdge,
  ): void => {
    const part = stack.parts[k];
    const { edges } = part;
    for (let e = 0; e < edges.length; e++) {
      const { input, d, high, at } = edges[e];
      edge(stack.buffers[input], at, d, high, part.plan, part.prep);
    }
    fns.f(0, stack.out * 8, stack.n1);
    const n = stack.n0 * stack.n1;
    let pair = part.outPair;
    if (pair === undefined) {
      pair = simd.bytePair(part.out.data as Float64Array, 0, n, stack.out * 8);
      part.outPair = pair;
    }
    if (pair !== null) pair.copy(pair.memory, pair.block);
    else simd.copyOut(part.out.data as Float64Array, 0, n, stack.out * 8);
  };
  // A part's inputs staged (each input's block copied whole into its stage): a memcpy per input
  // once its copy is made for the block's memory. Small, so that V8 optimises it early (a
  // function of more bytecode reached V8's threshold only in a program's fifth call or so, its
  // compile then taking a core from the sweeps); the rest is `stageOne`'s.
  const stageIn = (
    stack: BlockStack,
    part: StackPart,
    simd: NonNullable<ReturnType<typeof installSimd>>,
  ): void => {
    const pairs = part.pairs;
    for (let i = 0; i < stack.inputs; i++) {
      const pair = pairs === undefined ? null : pairs[i];
      if (pair !== null) pair.copy(pair.block, pair.memory);
      else stageOne(stack, part, simd, i);
    }
  };
  // Input `i` of a part staged where `stageIn` has no copy for its memory: the part's copies
  // made at its first staging in this memory, or the elements copied one by one where the
  // block is not contiguous.
  const stageOne = (
    stack: BlockStack,
    part: StackPart,
    simd: NonNullable<ReturnType<typeof installSimd>>,
    i: number,
  ): void => {
    const { n0, n1, inputs } = stack;
    const n = n0 * n1;
    let pairs = part.pairs;
    if (pairs === undefined) {
      pairs = [];
      for (let j = 0; j < inputs; j++) {
        const { block, offset, contiguous } = part.own[j];
        const at = (stack.stage + j * (n + 2)) * 8;
        pairs.push(contiguous ? simd.bytePair(block.data as Float64Array, offset, n, at) : null);
      }
      part.pairs = pairs;
    }
    let pair = pairs[i];
    const { block, strides, offset, contiguous } = part.own[i];
    if (pair !== null && pair.of !== block.data) {
      pair = simd.bytePair(block.data as Float64Array, offset, n, (stack.stage + i * (n + 2)) * 8);
      pairs[i] = pair;
    }
    if (pair !== null) {
      pair.copy(pair.block, pair.memory);
      return;
    }
    const data = block.data;
    const at = stack.stage + i * (n + 2);
    if (contiguous) simd.copyIn(data as Float64Array, offset, n, at * 8);
    else {
      const area = stack.area as Float64Array;
      for (let j = 0; j < n1; j++) {
        for (let q = 0; q < n0; q++) {
          area[at + j * n0 + q] = data[offset + q * strides[0] + j * strides[1]];
        }
      }
    }
  };
  return {
    fuse(items, from, to) {
      const units: (SweepArgs | BlockStack)[] = [];
      let fused = false;
      for (let i = from; i < to; ) {
        const top = preparedOf(items[i]);
        const parts = top === null ? [] : [top];
        if (top !== null) {
          for (let j = i + 1; j < to; j++) {
            const next = preparedOf(items[j]);
            if (next === null || !below(parts[parts.length - 1], next)) break;
            parts.push(next);
          }
        }
        if (parts.length < 2) {
          units.push(items[i]);
          i++;
          continue;
        }
        units.push(make(parts, items.slice(i, i + parts.length)));
        i += parts.length;
        fused = true;
      }
      return fused ? units : null;
    },
    current(units) {
      for (const unit of units) {
        if (Array.isArray(unit)) continue;
        for (const part of unit.parts) {
          const p = part.prep;
          if (preparedOf(part.item) !== p) return false;
          // As the block kernel does at a block's first sweep of a call: its own elements and
          // the strips cut from its neighbours follow their blocks' memory (a kept block object
          // holds this call's; the strips were let go at the end of the last call).
          follow(p);
          const { copies, stripData, pairs, own, outPair } = part;
          for (let c = 0; c < copies.length; c++) stripData[c] = copies[c].src.data;
          // The memcpy views of blocks that hold other memory now: made again at the part's
          // first sweep (a sweep copies by them as they are).
          for (let i = 0; pairs !== undefined && i < pairs.length; i++) {
            const pair = pairs[i];
            if (pair !== null && pair.of !== own[i].block.data) part.pairs = undefined;
          }
          if (outPair != null && outPair.of !== part.out.data) part.outPair = undefined;
        }
      }
      return true;
    },
    sweep(stack) {
      // The SIMD kernels of this thread (a stack is made only where its blocks swept in SIMD).
      simdKernels ??= __DTASK_SIMD__() as NonNullable<ReturnType<typeof installSimd>>;
      const simd = simdKernels;
      const { n0, n1, r0, parts, PS, stride, stage, inputs, total, padded, isPadded } = stack;
      const P0 = PS[1];
      const n = n0 * n1;
      let area = stack.area;
      if (area === null || area.length === 0) {
        const made = simd.sweepArea(stage + inputs * (n + 2));
        area = made;
        stack.area = made;
        stack.buffers = [];
        for (let i = 0; i < inputs; i++) {
          stack.buffers.push(made.subarray(i * stride, i * stride + total));
        }
        // The copies' views were of the memory before it grew.
        for (const part of parts) {
          part.pairs = undefined;
          part.outPair = undefined;
        }
      }
      let fns = stack.fns;
      if (fns === null) {
        fns = simd.sweepModule(stack.program, stack.offsets, n0, PS[1] * 8);
        stack.fns = fns;
      }
      const g = globalThis as unknown as {
        __dtaskStencilEdge: FillEdge;
        __dtaskStencilSimdSweeps?: number;
        __dtaskStencilStackSweeps?: number;
      };
      const edge = g.__dtaskStencilEdge;
      const buffers = stack.buffers;
      // Block by block, top to bottom, in the block kernel's buffers: each input's block staged;
      // the block above given its rows below from the stage and finished; its last rows moved
      // above (where this block's top halo is), this block spread in, then its strips.
      for (let k = 0; k < parts.length; k++) {
        const part = parts[k];
        stageIn(stack, part, simd);
        // The rows between the block above (laid out in each padded input's buffer) and this
        // one (staged), in the SIMD module: this block's first rows below the block above (`h`),
        // which is then finished; its last rows moved above as this block is spread in (`s`),
        // where this block's top halo is laid out. The corners are the blocks' strips' or
        // edges', as for a block alone.
        if (k > 0) {
          for (let f = 0; f < padded.length; f++) {
            const i = padded[f];
            fns.h((stage + i * (n + 2)) * 8, (i * stride + stack.first) * 8, n1, r0 * 8);
          }
          finish(stack, k - 1, simd, fns, edge);
        }
        for (let i = 0; i < inputs; i++) {
          const from = (stage + i * (n + 2)) * 8;
          const to = (i * stride + stack.first) * 8;
          if (k > 0 && isPadded[i]) fns.s(from, to, n1, r0 * 8);
          else fns.g(from, to, n1);
        }
        // Its strips (see `StackPart.stripAt`). Written here, not in a function of their own:
        // their loops make this function hot (V8 counts the bytecode a function runs itself),
        // so that V8 optimises it in a program's first call, not in a later one on a helper
        // thread taking a core from the sweeps (as it did once the rows between blocks went
        // into the SIMD module).
        const at = part.stripAt;
        const data = part.stripData;
        for (let c = 0, o = 0; c < data.length; c++, o += 7) {
          const src = data[c];
          const buf = buffers[at[o]];
          let t = at[o + 1];
          let s = at[o + 2];
          const s0 = at[o + 3];
          const s1 = at[o + 4];
          const m0 = at[o + 5];
          const m1 = at[o + 6];
          for (let j = 0; j < m1; j++, s += s1, t += P0) {
            for (let i = 0, q = s; i < m0; i++, q += s0) buf[t + i] = src[q];
          }
        }
      }
      finish(stack, parts.length - 1, simd, fns, edge);
      // How many blocks this thread swept in SIMD, and how many of them in stacks (a task may
      // read them to see which ran).
      g.__dtaskStencilSimdSweeps = (g.__dtaskStencilSimdSweeps ?? 0) + parts.length;
      g.__dtaskStencilStackSweeps = (g.__dtaskStencilStackSweeps ?? 0) + parts.length;
    },
  };
}

/** `stencilStackerKernel` with the SIMD loader spliced into its source. */
export const stencilStacker: () => Stacker<BlockStack> = linkKernel(
  stencilStackerKernel,
  'stencilStacker',
  { follow: followBlocks },
);

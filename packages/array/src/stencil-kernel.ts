// The stencil's block kernel. It is self-contained (no outer variables; its SIMD sweep is spliced
// into its source) so it travels to worker threads and processes as source text.
import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import { stencilCopyBox } from './stencil-copy-box.js';
import { stencilFillEdge } from './stencil-fill-edge.js';
import { followBlocks } from './stencil-follow-blocks.js';
import { stencilLoop } from './stencil-loop.js';
import type { StencilPlan } from './stencil-plan.js';
import type { CopyBox, FillEdge, Prepared } from './stencil-prepared.js';
import { stencilSimd } from './stencil-simd-sweep.js';

declare const __DTASK_LINK_simd__: typeof stencilSimd;
declare const __DTASK_LINK_loop__: typeof stencilLoop;
declare const __DTASK_LINK_follow__: typeof followBlocks;
declare const __DTASK_LINK_copy__: typeof stencilCopyBox;
declare const __DTASK_LINK_edge__: typeof stencilFillEdge;

/**
 * One block of one stencil step: `blocks` holds, per input of `plan.inputs`, its own block
 * and then its halo strips (in `codes` order). Padded inputs are copied with their halo
 * into a buffer `radius` wider on each side, the edges of the whole array filled by the
 * boundary conditions (dimension by dimension, in order); then the compiled kernel runs over
 * the block's elements, writing `out` in place (a datadeps `InOut`) or a new block.
 */
function stencilBlockKernel(
  plan: StencilPlan,
  out: Block | null,
  ...blocks: Block[]
): Block | null | Promise<Block | null> {
  const { shape, radius } = plan;
  // A module's kernel: its module, imported once per thread (the first task waits for it).
  let kernel: Function | null = null;
  if (plan.module !== null) {
    const gm = globalThis as unknown as {
      __dtaskStencilModules?: Map<string, Record<string, unknown>>;
    };
    const modules = gm.__dtaskStencilModules ?? new Map<string, Record<string, unknown>>();
    gm.__dtaskStencilModules = modules;
    const { url, name } = plan.module;
    const ns = modules.get(url);
    if (ns === undefined) {
      // Through an indirect eval, so that the import stays the runtime's own wherever this
      // source is compiled (a bundler may rewrite a literal import() into a helper of its module).
      // biome-ignore lint/security/noGlobalEval: the runtime's own import of an everywhere module.
      const evaluate = globalThis.eval; // called by reference: an indirect (global) eval
      const load = evaluate('(u) => import(u)') as (u: string) => Promise<Record<string, unknown>>;
      return load(url).then((m) => {
        modules.set(url, m);
        return stencilBlockKernel(plan, out, ...blocks);
      });
    }
    if (typeof ns[name] !== 'function') {
      throw new TypeError(`stencil: module ${url} exports no function ${name} here`);
    }
    kernel = ns[name] as Function;
  }
  // What depends only on the plan and the blocks (the padded geometry, the copies and edges to
  // make, the halo views): made once per block and kept per thread, keyed by the block it writes,
  // while the plan and blocks are the same objects (stencilSteps' task per thread sweeps each
  // of its blocks every step with the same ones). A task writing a new block makes it afresh.
  const gp = globalThis as unknown as {
    __dtaskStencilPrepared?: WeakMap<Block, Prepared[]>;
    __dtaskStencilFollow?: typeof followBlocks;
  };
  const preparedAll = (gp.__dtaskStencilPrepared ??= new WeakMap<Block, Prepared[]>());
  const kept = out === null ? undefined : preparedAll.get(out);
  let prep: Prepared | undefined;
  if (kept !== undefined) {
    for (let i = 0; i < kept.length && prep === undefined; i++) {
      const p = kept[i];
      if (p.plan !== plan || p.blocks.length !== blocks.length) continue;
      let same = true;
      for (let a = 0; a < blocks.length && same; a++) same = p.blocks[a] === blocks[a];
      if (same) prep = p;
    }
    // The blocks may hold another array's memory now: the kept views follow them.
    if (prep !== undefined) (gp.__dtaskStencilFollow ??= __DTASK_LINK_follow__)(prep);
  }
  if (prep === undefined) {
    // Made once per block and call, by one function per thread (made by the first task and
    // kept): a block's first sweep of a call runs it, the others only the loop above. Apart, a
    // first sweep's new objects do not throw away this function's optimised code (a call's
    // blocks are new objects: the step task's own views), which the thread would otherwise
    // compile again at every call, in V8's helper threads, for 64 blocks as for 8.
    const gm = globalThis as unknown as {
      __dtaskStencilPrepare?: (
        plan: StencilPlan,
        out: Block | null,
        blocks: Block[],
        kernel: Function | null,
        kept: Prepared[] | undefined,
      ) => Prepared;
    };
    const prepare = (gm.__dtaskStencilPrepare ??= (
      plan: StencilPlan,
      out: Block | null,
      blocks: Block[],
      kernel: Function | null,
      kept: Prepared[] | undefined,
    ): Prepared => {
      const { shape, radius } = plan;
      const nd = shape.length;
      const gp = globalThis as unknown as {
        __dtaskStencilPrepared?: WeakMap<Block, Prepared[]>;
        __dtaskStencilFollow?: typeof followBlocks;
      };
      const preparedAll = (gp.__dtaskStencilPrepared ??= new WeakMap<Block, Prepared[]>());
      let prep: Prepared;
      const P = shape.map((s, d) => s + 2 * radius[d]);
      const PS: number[] = [];
      let total = 1;
      for (const p of P) {
        PS.push(total);
        total *= p;
      }
      // The rim of a block (within `radius` of an edge) reads the padded buffers, whose own part
      // needs only a frame twice as wide (what the rim reads; a reflection reads r + 1 in); the
      // interior reads the blocks in place.
      // A module's kernel reads every element through the padded buffers: they are copied whole.
      const frame = kernel === null ? radius.map((r) => 2 * r) : null;
      // An expression kernel whose padded reads all have literal offsets reads its own block in
      // place also in the first and last `radius` elements along dimension 0 of the interior
      // (each read resolved when compiled): the own block's frame along dimension 0 is then
      // copied only where an edge of the array is filled from it. In column-major blocks that
      // frame is an element or two of every column, a cache line and a page touched per column.
      const mixedRim =
        kernel === null &&
        plan.expr !== null &&
        shape[0] > 2 * radius[0] &&
        plan.sites.every((site) => !plan.inputs[site.input].padded || site.literal);
      prep = {
        plan,
        blocks,
        mixedRim,
        P,
        PS,
        total,
        pos: new Array(nd).fill(0),
        own: [],
        ownBlocks: [],
        strips: [],
        padded: [],
        fills: [],
      };
      let b = 0;
      plan.inputs.forEach((input, i) => {
        const block = input.isOut ? (out as Block) : blocks[b++];
        (prep as Prepared).own.push(block.data);
        (prep as Prepared).ownBlocks.push(block);
        (prep as Prepared).padded.push(null);
        if (!input.padded) return;
        const thin =
          mixedRim && frame !== null && !input.low[0] && !input.high[0]
            ? [0, ...frame.slice(1)]
            : frame;
        const copies: Prepared['fills'][number]['copies'] = [
          { src: block, origin: radius, frame: thin },
        ];
        for (const { code, lo } of input.codes) {
          const origin = code.map((c, d) =>
            c < 0 ? 0 : c === 0 ? radius[d] : radius[d] + shape[d],
          );
          let src = blocks[b++];
          if (lo !== undefined) {
            // A whole neighbouring block (on this processor): its strip in place.
            let offset = src.offset;
            for (let d = 0; d < nd; d++) offset += lo[d] * src.strides[d];
            const sh = code.map((c, d) => (c === 0 ? shape[d] : radius[d]));
            const parent = src;
            src = { data: src.data, shape: sh, strides: src.strides, offset };
            (prep as Prepared).strips.push({ view: src as { data: Block['data'] }, parent });
          }
          copies.push({ src, origin, frame: null });
        }
        const edges: { d: number; high: boolean }[] = [];
        for (let d = 0; d < nd; d++) {
          if (input.low[d]) edges.push({ d, high: false });
          if (input.high[d]) edges.push({ d, high: true });
        }
        (prep as Prepared).fills.push({ input: i, copies, edges });
      });
      if (out !== null) {
        const list = kept ?? [];
        // A few plans per block at most (a step's kernels writing it); past that, the newest.
        if (list.length >= 4) list.shift();
        list.push(prep);
        if (kept === undefined) preparedAll.set(out, list);
      }
      return prep;
    });
    prep = prepare(plan, out, blocks, kernel, kept);
  }
  const { PS, total, padded, own } = prep;
  // The copy and edge functions: one each per thread, made by the first task and kept.
  const gh = globalThis as unknown as {
    __dtaskStencilCopy?: CopyBox;
    __dtaskStencilEdge?: FillEdge;
  };
  const copyBox = (gh.__dtaskStencilCopy ??= __DTASK_LINK_copy__);
  const fillEdge = (gh.__dtaskStencilEdge ??= __DTASK_LINK_edge__);
  // Padded buffers are reused by the next tasks on this thread (a task runs to its end before
  // the next starts): no allocation and zeroing of a block-sized buffer per task. What a task
  // reads of one is written first (frame, strips, edges); a new one starts as NaN, so a read
  // of anything else would show.
  const g = globalThis as unknown as { __dtaskStencilPads?: Map<number, Float64Array[]> };
  let pool = g.__dtaskStencilPads;
  if (pool === undefined) {
    pool = new Map<number, Float64Array[]>();
    g.__dtaskStencilPads = pool;
  }
  let free = pool.get(total);
  if (free === undefined) {
    free = [];
    pool.set(total, free);
  }
  // A kernel that is arithmetic of its reads sweeps in SIMD where that runs: every input (its
  // own block whole, then its strips and edges) laid out in the module's memory.
  // Its SIMD run, asked for once per block and call (the maker, once per thread and not a
  // closure per block, keeps one per plan) and again only where a kernel grew the module's
  // memory since (the run's area is then detached).
  let simd = prep.simd;
  if (simd === undefined || (simd !== null && simd.area.length === 0)) {
    const gs = globalThis as unknown as { __dtaskStencilSimd?: typeof stencilSimd };
    simd =
      kernel === null && plan.simd != null
        ? (gs.__dtaskStencilSimd ??= __DTASK_LINK_simd__)(plan, total, PS)
        : null;
    prep.simd = simd;
  }
  if (simd !== null) simd.fill(own, prep.fills, copyBox, fillEdge, plan, prep);
  for (let f = 0; f < prep.fills.length && simd === null; f++) {
    const { input, copies, edges } = prep.fills[f];
    const buf = free.pop() ?? new Float64Array(total).fill(Number.NaN);
    padded[input] = buf;
    for (let c = 0; c < copies.length; c++) {
      const { src, origin, frame } = copies[c];
      copyBox(src, buf, origin, frame, PS);
    }
    for (let e = 0; e < edges.length; e++) {
      fillEdge(buf, plan.inputs[input], edges[e].d, edges[e].high, plan, prep);
    }
  }
  const mixedRim = prep.mixedRim;
  let result = out;
  if (result === null) {
    // The typed array of the dtype's name ('uint8': Uint8Array).
    const C = (globalThis as any)[
      `${plan.dtype[0].toUpperCase()}${plan.dtype.slice(1)}Array`
    ] as Float64ArrayConstructor;
    let n = 1;
    const strides: number[] = [];
    for (const s of shape) {
      strides.push(n);
      n *= s;
    }
    result = {
      data: new C(new SharedArrayBuffer(n * C.BYTES_PER_ELEMENT)),
      shape,
      strides,
      offset: 0,
    };
  }
  if (simd !== null) {
    simd.finish(result);
    return result;
  }
  // Compiled once per kernel and block layout on each thread.
  const gc = globalThis as unknown as { __dtaskStencilCache?: Map<string, Function> };
  const cache = gc.__dtaskStencilCache ?? new Map<string, Function>();
  gc.__dtaskStencilCache = cache;
  const key =
    plan.key ??
    JSON.stringify([
      plan.source,
      plan.expr,
      plan.sites,
      shape,
      radius,
      plan.idxName,
      plan.inputs.map((i) => i.padded),
      plan.module,
      plan.names,
    ]);
  let run = cache.get(key);
  if (run === undefined) {
    // The loop's source made and compiled by one function per thread (as the preparation
    // above), so that this function stays small.
    const gl = globalThis as unknown as {
      __dtaskStencilLoop?: (plan: StencilPlan, PS: number[], mixedRim: boolean) => Function;
    };
    const compile = (gl.__dtaskStencilLoop ??= __DTASK_LINK_loop__);
    run = compile(plan, PS, mixedRim);
    cache.set(key, run);
  }
  try {
    run(padded, own, result.data, plan.start, kernel);
  } finally {
    for (let i = 0; i < padded.length; i++) {
      const buf = padded[i];
      if (buf === null) continue;
      if (free.length < 4) free.push(buf);
      padded[i] = null;
    }
  }
  return result;
}

declare const __DTASK_LINK_full__: typeof stencilBlockKernel;

/**
 * `stencilBlockKernel`'s common case first, in a function small enough for V8 to optimise it
 * after a few hundred blocks, and cheaply: a block this thread prepared and kept, swept in SIMD
 * (what every sweep after a call's first does). The large kernel, run for everything else, was
 * optimised only after about 2,600 blocks a thread (V8 waits for more calls the larger a function
 * is): in the fourth or fifth 64-block call, or never for 8 blocks, compiling 13 ms in each
 * worker's helper thread while the sweeps ran.
 */
function stencilBlockSweep(
  plan: StencilPlan,
  out: Block | null,
  ...blocks: Block[]
): Block | null | Promise<Block | null> {
  const g = globalThis as unknown as {
    __dtaskStencilPrepared?: WeakMap<Block, Prepared[]>;
    __dtaskStencilCopy?: CopyBox;
    __dtaskStencilEdge?: FillEdge;
    __dtaskStencilFull?: typeof stencilBlockKernel;
    __dtaskStencilFollow?: typeof followBlocks;
  };
  const kept =
    out === null || plan.module !== null ? undefined : g.__dtaskStencilPrepared?.get(out);
  const copy = g.__dtaskStencilCopy;
  const edge = g.__dtaskStencilEdge;
  for (let i = 0; kept !== undefined && i < kept.length; i++) {
    const p = kept[i];
    if (p.plan !== plan || p.blocks.length !== blocks.length) continue;
    let same = true;
    for (let a = 0; a < blocks.length && same; a++) same = p.blocks[a] === blocks[a];
    const simd = p.simd;
    if (!same || simd == null || simd.area.length === 0) break;
    if (copy === undefined || edge === undefined) break;
    // As the kernel does: the own elements and the strips follow their blocks' memory.
    (g.__dtaskStencilFollow ??= __DTASK_LINK_follow__)(p);
    simd.fill(p.own, p.fills, copy, edge, plan, p);
    simd.finish(out as Block);
    return out;
  }
  const full = (g.__dtaskStencilFull ??= __DTASK_LINK_full__);
  return full(plan, out, ...blocks);
}

/**
 * One block of one stencil step (see `stencilBlockKernel`, and `stencilBlockSweep` for its
 * common case), with the SIMD sweep (`stencilSimd`) spliced into its source: self-contained,
 * so it travels to worker threads and processes as source text.
 */
export const stencilBlock: (
  plan: StencilPlan,
  out: Block | null,
  ...blocks: Block[]
) => Block | null | Promise<Block | null> = linkKernel(stencilBlockSweep, 'stencilBlock', {
  full: stencilBlockKernel,
  copy: stencilCopyBox,
  edge: stencilFillEdge,
  simd: stencilSimd,
  loop: stencilLoop,
  follow: followBlocks,
});

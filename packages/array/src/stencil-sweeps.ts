// The steps of `stencilSteps` over blocks in shared memory, one task per thread for all steps:
// self-contained (the block kernel is spliced into its source) so it travels to worker threads
// as source text.

import { linkKernel } from './kernel-link.js';
import type { Block } from './kernels.js';
import { stencilBlock } from './stencil-kernel.js';
import type { StencilPlan } from './stencil-plan.js';
import type { Prepared } from './stencil-prepared.js';
import { stencilStacker } from './stencil-stack.js';
import { type SweepArgs, type SweepsRun, sweepsRunner } from './stencil-sweeps-runner.js';

declare const __DTASK_LINK_stencilBlock__: typeof stencilBlock;
declare const __DTASK_LINK_sweepsRunner__: typeof sweepsRunner;
declare const __DTASK_LINK_stencilStacker__: typeof stencilStacker;

/**
 * One thread's part of `stencilSteps`, as planned: its blocks (each once, as a slot), the
 * plans, each once; the distinct layouts of a step on this thread, each block it writes as
 * `[plan, out, ...reads]` (indices into `plans` and the slots, in `stencilBlock`'s argument
 * order); per step, in order, its layout's index.
 */
export interface SweepsPlan {
  /**
   * Per block the steps read or write, where the task finds it: `i ≥ 0`, its own argument `i`
   * (a block its thread holds); `-1 - j`, `SweepsJob.foreign[j]` (a block another holds).
   */
  slots: number[];
  /** Every plan, once each. */
  plans: StencilPlan[];
  /** The distinct layouts of a step: per block it writes, `[plan, out, ...reads]`. */
  layouts: number[][][];
  /** Per step, in order, the index of its layout in `layouts`. */
  steps: number[];
  /**
   * Per layout, how many of its first blocks touch another thread's memory: those reading a
   * block another thread holds and those writing a block another thread reads (listed first).
   * The thread arrives at the step's barrier once they are done and sweeps the rest, which only
   * it reads and writes, while the others go on to the next step.
   */
  early: number[];
}

/**
 * What one thread's task of `stencilSweeps` is told, sent once for all the steps: its
 * `SweepsPlan` as one JSON text (non-finite numbers and −0 as tagged strings), which crosses
 * to the thread as one string, not as thousands of small objects each walked and cloned; the
 * memory and geometry of the blocks it reads from other threads; the barrier. The blocks its
 * own thread holds follow as the task's arguments, found where they are (nothing of them is
 * sent).
 */
export interface SweepsJob {
  /** `SweepsPlan` as JSON. */
  text: string;
  /** The memory of the blocks read from other threads (shared), as `slots` name them. */
  foreign: Block['data'][];
  /**
   * Their geometry: per block in `foreign`, in turn, its offset, its rank r, r lengths and r
   * strides (numbers, not an object per block, to be looked into and cloned at every call).
   */
  geometry: number[];
  /**
   * The barrier, an `Int32Array` over a `SharedArrayBuffer`: element 0 counts the arrivals
   * (each task adds 1 after each step), element 1 is set when a task failed or the caller gave
   * up, and each waiting task then stops.
   */
  sync: Int32Array;
  /** How many tasks meet at the barrier after each step. */
  parties: number;
}

/** The tag of a number JSON cannot hold (NaN, ±Infinity, −0), as `SweepsJob.text` writes it. */
const TAG = '\u0000n:';

/** `plan` as `SweepsJob.text`. */
export function packJob(plan: SweepsPlan): string {
  // Only a boundary's value can be a number JSON cannot hold: the (slower) tagging then.
  const odd = plan.plans.some((p) =>
    p.inputs.some((i) =>
      i.bc.some(
        (b) => b.value !== undefined && (!Number.isFinite(b.value) || Object.is(b.value, -0)),
      ),
    ),
  );
  return odd
    ? JSON.stringify(plan, (_k, v) =>
        typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))
          ? `${TAG}${v === 0 ? '-0' : v}`
          : v,
      )
    : JSON.stringify(plan);
}

/**
 * Runs the steps of `job` over this thread's blocks, each block with the stencil's block
 * kernel, written in place, the threads meeting at a barrier after each step (see
 * `sweepsRunner`, made once per thread and kept).
 */
function stencilSweepsTask(job: SweepsJob, ...own: Block[]): null | Promise<null> {
  // The block kernel, made by the first call on this thread and kept: made anew at every call
  // (a function written inside this one is a new closure each time), it started each call
  // cold, and a call of 32 blocks a thread ran it often enough to have it optimised again, in
  // V8's helper threads, at every call, while the sweeps waited on the baseline code.
  const gk = globalThis as unknown as { __dtaskStencilBlock?: typeof stencilBlock };
  const kernel = (gk.__dtaskStencilBlock ??= __DTASK_LINK_stencilBlock__);
  // The loop over the steps and the barrier, kept per thread for the same reason (see
  // sweepsRunner): its functions take the call's state as an argument.
  const gr = globalThis as unknown as {
    __dtaskSweepsRunner?: (run: SweepsRun) => null | Promise<null>;
  };
  // Blocks one below the other swept as one (see stencilStacker), its helpers kept alike.
  const runner = (gr.__dtaskSweepsRunner ??= __DTASK_LINK_sweepsRunner__(
    kernel,
    __DTASK_LINK_stencilStacker__(),
  ));
  const { sync, parties } = job;
  const tag = '\u0000n:';
  // A kept block object, its memory put in at each call.
  type Held = {
    data: Block['data'];
    shape: readonly number[];
    strides: readonly number[];
    offset: number;
  };
  /**
   * The job's block objects and each step's kernel arguments, kept for the next call laid out
   * alike (its blocks' memory put in), while no task of this thread uses them (`busy`); with
   * what the stacker made of each layout (see SweepsRun.fused).
   */
  type Mine = {
    blocks: Held[];
    argsOf: SweepArgs[][];
    busy: boolean;
    fused: NonNullable<SweepsRun['fused']>;
  };
  type Parsed = {
    slots: number[];
    plans: StencilPlan[];
    layouts: number[][][];
    steps: number[];
    early: number[];
    /** What the last call laid out alike kept (see Mine). */
    kept?: Mine;
  };
  // A call laid out as an earlier one sends the same text (see stepsInGroups): its plans are
  // parsed once per thread and kept (a few texts), so the block kernel finds them the same.
  const gj = globalThis as unknown as { __dtaskSweepsJobs?: Map<string, Parsed> };
  const parsedAll = (gj.__dtaskSweepsJobs ??= new Map<string, Parsed>());
  let parsed = parsedAll.get(job.text);
  if (parsed === undefined) {
    parsed = JSON.parse(
      job.text,
      job.text.includes('\\u0000n:')
        ? (_k, v) => (typeof v === 'string' && v.startsWith(tag) ? Number(v.slice(tag.length)) : v)
        : undefined,
    ) as Parsed;
    if (parsedAll.size >= 4) parsedAll.delete(parsedAll.keys().next().value as string);
    parsedAll.set(job.text, parsed);
  }
  const { slots, plans, layouts, steps, early } = parsed;
  // Each slot's block of this call: an argument (held here) or a view of another's.
  const far: Block[] = [];
  for (let j = 0, p = 0; j < job.foreign.length; j++) {
    const rank = job.geometry[p + 1];
    const shape = job.geometry.slice(p + 2, p + 2 + rank);
    const strides = job.geometry.slice(p + 2 + rank, p + 2 + 2 * rank);
    far.push({ data: job.foreign[j], shape, strides, offset: job.geometry[p] });
    p += 2 + 2 * rank;
  }
  const given: Block[] = slots.map((at) => (at >= 0 ? own[at] : far[-1 - at]));
  // The block objects (and the kernel's arguments, and so what the kernel prepared for each
  // block) of the last call laid out alike, its blocks' memory put in: a call of a program
  // that steps new arrays (or the same) makes no new object per block, and the kernel's
  // functions keep seeing the same objects (new ones each call threw their optimised code
  // away, to be compiled again). A call meeting them in use (another call of the same layout
  // at a barrier on this thread) makes its own.
  const keep = parsed.kept;
  let mine: Mine | undefined;
  // Kept objects serve blocks of the same geometry (what the kernel prepared depends on it).
  let alike = keep !== undefined && !keep.busy;
  for (let i = 0; alike && i < given.length; i++) {
    const [a, b] = [(keep as { blocks: Held[] }).blocks[i], given[i]];
    alike = a.offset === b.offset && a.shape.length === b.shape.length;
    for (let d = 0; alike && d < a.shape.length; d++) {
      alike = a.shape[d] === b.shape[d] && a.strides[d] === b.strides[d];
    }
  }
  if (alike) {
    mine = keep as Mine;
    for (let i = 0; i < given.length; i++) mine.blocks[i].data = given[i].data;
  } else {
    const blocks: Held[] = given.map((b) => ({
      data: b.data,
      shape: [...b.shape],
      strides: [...b.strides],
      offset: b.offset,
    }));
    // Per layout, each block's kernel arguments, made once for all the steps: the kernel keeps
    // what it prepares for a block while these are the same objects (see stencilBlock).
    const argsOf = layouts.map((layout) =>
      layout.map((at) => {
        const args: SweepArgs = [plans[at[0]], blocks[at[1]]];
        for (let a = 2; a < at.length; a++) args.push(blocks[at[a]]);
        return args;
      }),
    );
    mine = { blocks, argsOf, busy: false, fused: [] };
    if (keep === undefined || !keep.busy) parsed.kept = mine;
  }
  mine.busy = true;
  const { argsOf, fused } = mine;
  const run: SweepsRun = { sync, parties, steps, argsOf, early, fused };
  // Once the call ends, what is kept for the next one lets go of its memory: the block objects
  // and what the kernel prepared for them would otherwise keep this call's arrays (shared
  // memory) alive on this thread after the program dropped them. The next call puts its own in
  // (the kernel points its preparations at it again).
  const release = () => {
    const held = mine as { blocks: Held[]; busy: boolean };
    const prepared = (
      globalThis as unknown as { __dtaskStencilPrepared?: WeakMap<object, Prepared[]> }
    ).__dtaskStencilPrepared;
    const none = new Float64Array(0);
    for (const block of held.blocks) {
      block.data = none;
      for (const p of prepared?.get(block) ?? []) {
        p.own.fill(none);
        for (const strip of p.strips) strip.view.data = none;
      }
    }
    held.busy = false;
  };
  let done: null | Promise<null>;
  try {
    done = runner(run);
  } catch (e) {
    release();
    throw e;
  }
  if (done === null) {
    release();
    return null;
  }
  return done.finally(release);
}

/** `stencilSweepsTask` with the block kernel's source spliced in. */
export const stencilSweeps: (job: SweepsJob, ...own: Block[]) => null | Promise<null> = linkKernel(
  stencilSweepsTask,
  'stencilSweeps',
  { stencilBlock, sweepsRunner, stencilStacker },
);

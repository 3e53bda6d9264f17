import { type DTask, ExactScope, type Processor } from '@dtask/core';
import type { Block } from './kernels.js';
import type { SpawnFn } from './placement.js';
import type { StencilPlan } from './stencil-plan.js';
import { packJob, type SweepsJob, type SweepsPlan, stencilSweeps } from './stencil-sweeps.js';

/** What `stepsInGroups` needs of each step: the array it writes, and which steps repeat it. */
export interface GroupedStep {
  /** The chunks of the array the step writes, column-major over the grid. */
  out: readonly DTask<Block>[];
  /**
   * The index of the first step with the same kernel and output (this step's own when none
   * came before): such steps have the same plans and blocks (a double buffer's two sweeps
   * repeat), so they share one layout, planned once.
   */
  same: number;
}

/** One processor's packed job, kept between calls (see `stepsInGroups`' `key`). */
interface KeptJob {
  /** The processor's id. */
  proc: string;
  /** `packJob`'s text. */
  text: string;
  /** Per block of the job, in its order: its position in the call's `chunks`. */
  refs: number[];
  /** Per block of the job, the view it was planned for: shape, strides, offset. */
  views: [readonly number[], readonly number[], number][];
}

/**
 * The packed jobs of recent calls, by their key: a program calling `stencilSteps` again on
 * arrays laid out alike (the same shapes, blocks, processors, kernels and boundaries; new
 * arrays or the same) sends the same texts with the new blocks' memory, planning nothing.
 */
const kept = new Map<string, KeptJob[]>();
/** How many calls' jobs are kept (the oldest is dropped). */
const KEPT = 8;

/**
 * The plan of block `k` of step `s` and the chunks it reads, each neighbour whole (read in
 * place), in `stencilBlock`'s argument order after `out`.
 */
export type PlanInPlace = (s: number, k: number) => { plan: StencilPlan; args: unknown[] };

/**
 * `stencilSteps` over blocks all in this process's shared memory: one task per processor
 * holding blocks of the arrays the steps write (owner computes) runs every step over its
 * blocks, each block's kernel in turn, reading every neighbour, on its own processor or
 * another thread's, in place (the blocks are views of shared memory; no halo strip is cut or
 * moved). After each step the tasks meet at a barrier in shared memory (`stencilSweeps`), so
 * each step reads the values the step before left and none writes a block another still
 * reads; no message goes through this thread between steps. Per block this costs a loop turn,
 * not a task: the task's cost (its message, the plans and block views it carries) is paid once
 * per processor and call. Resolves when every task has done the last step; rejects with the
 * first failure (the other tasks stop at their next barrier). With `key` (what the plans
 * depend on besides the blocks' memory: shapes, blocks, processors, kernels, boundaries, as
 * the caller writes it), the jobs are kept, and a later call with the same key and blocks of
 * the same geometry reuses them: no block is planned and no job packed again.
 */
export async function stepsInGroups(
  spawn: SpawnFn,
  chunks: readonly DTask<Block>[],
  steps: readonly GroupedStep[],
  planOf: PlanInPlace,
  key: string | null = null,
): Promise<void> {
  // Each block's value once (a view of its shared memory), passed to the tasks as is. A task
  // where the blocks live hands out views, so the chunks themselves stay where they are.
  const values = new Map<DTask<Block>, Block>();
  const homes = new Map<string, { proc: Processor; chunks: DTask<Block>[] }>();
  for (const c of new Set(chunks)) {
    const proc = c.processor as Processor;
    const home = homes.get(proc.id) ?? { proc, chunks: [] };
    home.chunks.push(c);
    homes.set(proc.id, home);
  }
  await Promise.all(
    [...homes.values()].map(async ({ proc, chunks: held }) => {
      const views = spawn(
        { name: 'blockViews', scope: new ExactScope(proc) },
        blockViews,
        ...held,
      ) as unknown as DTask<Block[]>;
      const got = await views.fetch();
      for (let i = 0; i < held.length; i++) values.set(held[i], got[i]);
    }),
  );
  const sync = new Int32Array(new SharedArrayBuffer(8));
  const procs = new Map<string, Processor>();
  for (const c of chunks) procs.set((c.processor as Processor).id, c.processor as Processor);
  let packed = key === null ? undefined : reuse(kept.get(key), chunks, values, procs);
  if (packed === undefined) {
    const made = planJobs(chunks, steps, planOf, values);
    packed = made.map(({ proc, job, refs }) => ({
      proc,
      kept: {
        proc: proc.id,
        text: packJob(job, sync, 0).text,
        refs,
        views: job.blocks.map((b) => [[...b.shape], [...b.strides], b.offset]),
      },
      data: job.blocks.map((b) => b.data),
    }));
    if (key !== null) {
      kept.delete(key);
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
      kept.set(
        key,
        packed.map((p) => p.kept),
      );
    }
  }
  const parties = packed.length;
  const giveUp = () => {
    Atomics.store(sync, 1, 1);
    Atomics.add(sync, 0, 1);
    Atomics.notify(sync, 0);
  };
  const tasks = packed.map(({ proc, kept: job, data }) =>
    spawn({ name: 'stencilSweeps', scope: new ExactScope(proc), retries: 0 }, stencilSweeps, {
      text: job.text,
      data,
      sync,
      parties,
    } satisfies SweepsJob),
  );
  // A task that fails (its kernel, its thread) stops the others at their next barrier.
  await Promise.all(
    tasks.map((t) =>
      t.fetch({ raw: true }).catch((e: unknown) => {
        giveUp();
        throw e;
      }),
    ),
  );
}

/** The blocks it is given, as new views of the same memory (sent as such, nothing copied). */
function blockViews(...blocks: Block[]): Block[] {
  return blocks.map((b) => ({
    data: b.data,
    shape: b.shape,
    strides: b.strides,
    offset: b.offset,
  }));
}

/** A job to send: its processor, what is kept of it, and its blocks' memory for this call. */
interface Packed {
  proc: Processor;
  kept: KeptJob;
  data: Block['data'][];
}

/**
 * The kept jobs of an earlier call, with this call's blocks' memory, when every block has the
 * geometry it was planned with and every processor is still in use; else undefined.
 */
function reuse(
  jobs: KeptJob[] | undefined,
  chunks: readonly DTask<Block>[],
  values: ReadonlyMap<DTask<Block>, Block>,
  procs: ReadonlyMap<string, Processor>,
): Packed[] | undefined {
  if (jobs === undefined) return undefined;
  const out: Packed[] = [];
  for (const job of jobs) {
    const proc = procs.get(job.proc);
    if (proc === undefined) return undefined;
    const data: Block['data'][] = [];
    for (let i = 0; i < job.refs.length; i++) {
      const b = values.get(chunks[job.refs[i]]);
      const [shape, strides, offset] = job.views[i];
      if (
        b === undefined ||
        b.offset !== offset ||
        b.shape.length !== shape.length ||
        b.shape.some((x, d) => x !== shape[d] || b.strides[d] !== strides[d])
      ) {
        return undefined;
      }
      data.push(b.data);
    }
    out.push({ proc, kept: job, data });
  }
  return out;
}

/**
 * Plans every step's blocks, per processor writing some: its blocks and plans once each, a
 * layout per distinct step (steps with the same `same` share one), and, per block, its position
 * in `chunks`.
 */
function planJobs(
  chunks: readonly DTask<Block>[],
  steps: readonly GroupedStep[],
  planOf: PlanInPlace,
  values: ReadonlyMap<DTask<Block>, Block>,
): { proc: Processor; job: SweepsPlan; refs: number[] }[] {
  const position = new Map<DTask<Block>, number>();
  chunks.forEach((c, i) => {
    if (!position.has(c)) position.set(c, i);
  });
  // Per processor: its job (blocks and plans once each, a layout per distinct list of
  // blocks). Steps that repeat their plans (a double buffer's two sweeps) share a layout.
  const jobs = new Map<string, { proc: Processor; job: SweepsPlan; refs: number[] }>();
  const jobOf = (proc: Processor) => {
    let entry = jobs.get(proc.id);
    if (entry === undefined) {
      entry = { proc, job: { blocks: [], plans: [], layouts: [], steps: [] }, refs: [] };
      jobs.set(proc.id, entry);
    }
    return entry;
  };
  const blockSlots = new Map<SweepsPlan, Map<Block, number>>();
  const planSlots = new Map<SweepsPlan, Map<StencilPlan, number>>();
  const slotOf = <T>(slots: Map<SweepsPlan, Map<T, number>>, job: SweepsPlan, list: T[], x: T) => {
    const own = slots.get(job) ?? new Map<T, number>();
    slots.set(job, own);
    let i = own.get(x);
    if (i === undefined) {
      i = list.length;
      list.push(x);
      own.set(x, i);
    }
    return i;
  };
  const blockSlot = (entry: { job: SweepsPlan; refs: number[] }, x: unknown) => {
    const view = values.get(x as DTask<Block>);
    if (view === undefined) throw new Error('stencilSteps: a block read is none of the arrays');
    const before = entry.job.blocks.length;
    const i = slotOf(blockSlots, entry.job, entry.job.blocks, view);
    if (i === before) entry.refs.push(position.get(x as DTask<Block>) as number);
    return i;
  };
  // Every processor writing blocks in some step takes part in every step's barrier.
  for (const step of steps) for (const chunk of step.out) jobOf(chunk.processor as Processor);
  const layoutKeys = new Map<SweepsPlan, Map<string, number>>();
  for (let s = 0; s < steps.length; s++) {
    const same = steps[s].same;
    if (same !== s) {
      for (const { job } of jobs.values()) job.steps.push(job.steps[same]);
      continue;
    }
    const items = new Map<SweepsPlan, number[][]>();
    for (const { job } of jobs.values()) items.set(job, []);
    steps[s].out.forEach((chunk, k) => {
      const entry = jobOf(chunk.processor as Processor);
      const { plan, args } = planOf(s, k);
      const item = [slotOf(planSlots, entry.job, entry.job.plans, plan), blockSlot(entry, chunk)];
      for (const a of args) item.push(blockSlot(entry, a));
      items.get(entry.job)?.push(item);
    });
    for (const [job, list] of items) {
      const keys = layoutKeys.get(job) ?? new Map<string, number>();
      layoutKeys.set(job, keys);
      const key = list.map((it) => it.join(',')).join(';');
      let l = keys.get(key);
      if (l === undefined) {
        l = job.layouts.length;
        job.layouts.push(list);
        keys.set(key, l);
      }
      job.steps.push(l);
    }
  }
  return [...jobs.values()];
}

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
  /** The blocks it holds, in the order of the task's arguments: positions in `chunks`. */
  own: number[];
  /** The blocks it reads from other processors, in the job's order: positions in `chunks`. */
  foreign: number[];
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
 * reads; a task arrives at a step's barrier once its blocks touching another processor's
 * memory are done, and sweeps its other blocks while the others go on; no message goes through this thread between steps. Per block this costs a loop turn,
 * not a task: the task's cost (its message, the plans it carries) is paid once per processor
 * and call. A task takes the blocks its processor holds as arguments (found there, nothing
 * sent), and only the blocks it reads from other processors come through this thread, as their
 * memory (views, nothing copied) and geometry, fetched where they live. Resolves when every
 * task has done the last step; rejects with the first failure (the other tasks stop at their
 * next barrier). With `key`
 * (what the plans depend on besides the blocks' memory: shapes, blocks, processors, kernels,
 * boundaries, as the caller writes it), the jobs are kept, and a later call with the same key
 * reuses them: no block is planned and no job packed again.
 */
export async function stepsInGroups(
  spawn: SpawnFn,
  chunks: readonly DTask<Block>[],
  steps: readonly GroupedStep[],
  planOf: PlanInPlace,
  key: string | null = null,
): Promise<void> {
  const procs = new Map<string, Processor>();
  for (const c of chunks) procs.set((c.processor as Processor).id, c.processor as Processor);
  let jobs = key === null ? undefined : kept.get(key);
  if (jobs?.some((job) => !procs.has(job.proc))) jobs = undefined;
  if (jobs === undefined) {
    jobs = planJobs(chunks, steps, planOf).map(({ proc, job, own, foreign }) => ({
      proc: proc.id,
      text: packJob(job),
      own,
      foreign,
    }));
    if (key !== null) {
      kept.delete(key);
      if (kept.size >= KEPT) kept.delete(kept.keys().next().value as string);
      kept.set(key, jobs);
    }
  }
  // The blocks read across processors, each once: their memory and geometry, found where they
  // live (see ForeignBlocks).
  const values = new Map<DTask<Block>, Foreign>();
  const homes = new Map<string, { proc: Processor; chunks: DTask<Block>[] }>();
  for (const job of jobs) {
    for (const ref of job.foreign) {
      const c = chunks[ref];
      if (values.has(c)) continue;
      const proc = c.processor as Processor;
      const home = homes.get(proc.id) ?? { proc, chunks: [] };
      values.set(c, { from: NONE, at: home.chunks.length, geometry: 0 });
      home.chunks.push(c);
      homes.set(proc.id, home);
    }
  }
  await Promise.all(
    [...homes.values()].map(async ({ proc, chunks: held }) => {
      const views = spawn(
        { name: 'blockViews', scope: new ExactScope(proc) },
        blockViews,
        ...held,
      ) as unknown as DTask<ForeignBlocks>;
      const got = await views.fetch();
      let p = 0;
      for (const c of held) {
        const value = values.get(c) as Foreign;
        value.from = got;
        value.geometry = p;
        p = geometryEnd(got.geometry, p);
      }
    }),
  );
  const sync = new Int32Array(new SharedArrayBuffer(8));
  const parties = jobs.length;
  const giveUp = () => {
    Atomics.store(sync, 1, 1);
    Atomics.add(sync, 0, 1);
    Atomics.notify(sync, 0);
  };
  const tasks = jobs.map((job) =>
    spawn(
      {
        name: 'stencilSweeps',
        scope: new ExactScope(procs.get(job.proc) as Processor),
        retries: 0,
      },
      stencilSweeps,
      {
        text: job.text,
        ...foreignOf(job.foreign, chunks, values),
        sync,
        parties,
      } satisfies SweepsJob,
      ...job.own.map((ref) => chunks[ref]),
    ),
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

/**
 * The blocks a task reads from other processors, as `blockViews` gives them: each block's
 * memory (a view of the same shared memory, nothing copied) and its geometry, per block its
 * offset, its rank r, r lengths and r strides, one after the other. Plain numbers and typed
 * arrays: no object per block is sized, cloned, looked into for class instances and cloned
 * again on its way through this thread.
 */
interface ForeignBlocks {
  /** Each block's memory. */
  data: Block['data'][];
  /** Each block's offset, rank, shape and strides, in turn. */
  geometry: number[];
}

const NONE: ForeignBlocks = { data: [], geometry: [] };

/** The blocks it is given as `ForeignBlocks`. */
function blockViews(...blocks: Block[]): ForeignBlocks {
  const data: Block['data'][] = [];
  const geometry: number[] = [];
  for (const b of blocks) {
    data.push(b.data);
    geometry.push(b.offset, b.shape.length, ...b.shape, ...b.strides);
  }
  return { data, geometry };
}

/** Where the geometry of the block at `p` in `geometry` ends: its offset, rank r, r lengths, r strides. */
function geometryEnd(geometry: readonly number[], p: number): number {
  return p + 2 + 2 * geometry[p + 1];
}

/** A block read across processors: its home's answer, where it is in it and its geometry. */
interface Foreign {
  from: ForeignBlocks;
  at: number;
  geometry: number;
}

/** The blocks at `refs` (positions in `chunks`) as `SweepsJob` takes them, from their homes'. */
function foreignOf(
  refs: readonly number[],
  chunks: readonly DTask<Block>[],
  values: ReadonlyMap<DTask<Block>, Foreign>,
): { foreign: Block['data'][]; geometry: number[] } {
  const foreign: Block['data'][] = [];
  const geometry: number[] = [];
  for (const ref of refs) {
    const { from, at, geometry: p } = values.get(chunks[ref]) as Foreign;
    foreign.push(from.data[at]);
    const end = geometryEnd(from.geometry, p);
    for (let q = p; q < end; q++) geometry.push(from.geometry[q]);
  }
  return { foreign, geometry };
}

/**
 * Plans every step's blocks, per processor writing some: its plans once each, a layout per
 * distinct step (steps with the same `same` share one; the blocks touching another processor's
 * memory first, see `SweepsPlan.early`), each block once, as a slot (see `SweepsPlan.slots`):
 * the blocks it holds (`own`, positions in `chunks`, its task's arguments) and those it reads
 * from other processors (`foreign`).
 */
export function planJobs(
  chunks: readonly DTask<Block>[],
  steps: readonly GroupedStep[],
  planOf: PlanInPlace,
): { proc: Processor; job: SweepsPlan; own: number[]; foreign: number[] }[] {
  const position = new Map<DTask<Block>, number>();
  chunks.forEach((c, i) => {
    if (!position.has(c)) position.set(c, i);
  });
  type Entry = {
    proc: Processor;
    job: SweepsPlan;
    own: number[];
    foreign: number[];
    blocks: Map<DTask<Block>, number>;
    plans: Map<StencilPlan, number>;
    layouts: Map<string, number>;
  };
  // Per processor: its job. Steps that repeat their plans (a double buffer's two sweeps) share
  // a layout.
  const jobs = new Map<string, Entry>();
  const jobOf = (proc: Processor) => {
    let entry = jobs.get(proc.id);
    if (entry === undefined) {
      entry = {
        proc,
        job: { slots: [], plans: [], layouts: [], steps: [], early: [] },
        own: [],
        foreign: [],
        blocks: new Map(),
        plans: new Map(),
        layouts: new Map(),
      };
      jobs.set(proc.id, entry);
    }
    return entry;
  };
  const blockSlot = (entry: Entry, x: unknown) => {
    const chunk = x as DTask<Block>;
    const at = position.get(chunk);
    if (at === undefined) throw new Error('stencilSteps: a block read is none of the arrays');
    let i = entry.blocks.get(chunk);
    if (i === undefined) {
      i = entry.job.slots.length;
      entry.blocks.set(chunk, i);
      if ((chunk.processor as Processor).id === entry.proc.id) {
        entry.job.slots.push(entry.own.length);
        entry.own.push(at);
      } else {
        entry.job.slots.push(-1 - entry.foreign.length);
        entry.foreign.push(at);
      }
    }
    return i;
  };
  const planSlot = (entry: Entry, plan: StencilPlan) => {
    let i = entry.plans.get(plan);
    if (i === undefined) {
      i = entry.job.plans.length;
      entry.job.plans.push(plan);
      entry.plans.set(plan, i);
    }
    return i;
  };
  // Every processor writing blocks in some step takes part in every step's barrier.
  for (const step of steps) for (const chunk of step.out) jobOf(chunk.processor as Processor);
  for (let s = 0; s < steps.length; s++) {
    const same = steps[s].same;
    if (same !== s) {
      for (const { job } of jobs.values()) job.steps.push(job.steps[same]);
      continue;
    }
    const items = new Map<Entry, number[][]>();
    for (const entry of jobs.values()) items.set(entry, []);
    steps[s].out.forEach((chunk, k) => {
      const entry = jobOf(chunk.processor as Processor);
      const { plan, args } = planOf(s, k);
      const item = [planSlot(entry, plan), blockSlot(entry, chunk)];
      for (const a of args) item.push(blockSlot(entry, a));
      items.get(entry)?.push(item);
    });
    for (const [entry, list] of items) {
      const key = list.map((it) => it.join(',')).join(';');
      let l = entry.layouts.get(key);
      if (l === undefined) {
        l = entry.job.layouts.length;
        entry.job.layouts.push(list);
        entry.layouts.set(key, l);
      }
      entry.job.steps.push(l);
    }
  }
  // The blocks some processor reads from another: their owners write them before arriving at a
  // step's barrier (see SweepsPlan.early), with the blocks reading another's; the rest after.
  const readAcross = new Set<number>();
  for (const { foreign } of jobs.values()) for (const at of foreign) readAcross.add(at);
  for (const { job, own } of jobs.values()) {
    const across = (item: number[]) => {
      const out = job.slots[item[1]];
      if (out >= 0 && readAcross.has(own[out])) return true;
      for (let a = 2; a < item.length; a++) if (job.slots[item[a]] < 0) return true;
      return false;
    };
    job.layouts = job.layouts.map((list) => {
      const first = list.filter(across);
      job.early.push(first.length);
      return first.length === 0 || first.length === list.length
        ? list
        : [...first, ...list.filter((item) => !across(item))];
    });
  }
  return [...jobs.values()].map(({ proc, job, own, foreign }) => ({ proc, job, own, foreign }));
}

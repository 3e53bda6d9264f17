import { type DTask, ExactScope, type Processor } from '@dtask/core';
import type { Block } from './kernels.js';
import type { SpawnFn } from './placement.js';
import type { StencilPlan } from './stencil-plan.js';
import { packJob, type SweepsPlan, stencilSweeps } from './stencil-sweeps.js';

/** What `stepsInGroups` needs of each step: the array it writes. */
export interface GroupedStep {
  /** The chunks of the array the step writes, column-major over the grid. */
  out: readonly DTask<Block>[];
}

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
 * first failure (the other tasks stop at their next barrier).
 */
export async function stepsInGroups(
  spawn: SpawnFn,
  chunks: readonly DTask<Block>[],
  steps: readonly GroupedStep[],
  planOf: PlanInPlace,
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
  const viewOf = (x: unknown) => values.get(x as DTask<Block>) ?? (x as Block);
  // Per processor: its job (blocks and plans once each, a layout per distinct list of
  // blocks). Steps that repeat their plans (a double buffer's two sweeps) share a layout.
  const jobs = new Map<string, { proc: Processor; job: SweepsPlan }>();
  const jobOf = (proc: Processor) => {
    let entry = jobs.get(proc.id);
    if (entry === undefined) {
      entry = { proc, job: { blocks: [], plans: [], layouts: [], steps: [] } };
      jobs.set(proc.id, entry);
    }
    return entry.job;
  };
  const slots = new Map<SweepsPlan, Map<unknown, number>>();
  const slot = <T>(job: SweepsPlan, list: T[], x: T) => {
    const own = slots.get(job) ?? new Map<unknown, number>();
    slots.set(job, own);
    let i = own.get(x);
    if (i === undefined) {
      i = list.length;
      list.push(x);
      own.set(x, i);
    }
    return i;
  };
  // Every processor writing blocks in some step takes part in every step's barrier.
  for (const step of steps) for (const chunk of step.out) jobOf(chunk.processor as Processor);
  const layoutKeys = new Map<SweepsPlan, Map<string, number>>();
  for (let s = 0; s < steps.length; s++) {
    const items = new Map<SweepsPlan, number[][]>();
    for (const { job } of jobs.values()) items.set(job, []);
    steps[s].out.forEach((chunk, k) => {
      const job = jobOf(chunk.processor as Processor);
      const { plan, args } = planOf(s, k);
      const at = [chunk, ...args].map((x) => slot(job, job.blocks, viewOf(x)));
      items.get(job)?.push([slot(job, job.plans, plan), ...at]);
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
  const sync = new Int32Array(new SharedArrayBuffer(8));
  const parties = jobs.size;
  const giveUp = () => {
    Atomics.store(sync, 1, 1);
    Atomics.add(sync, 0, 1);
    Atomics.notify(sync, 0);
  };
  const tasks = [...jobs.values()].map(({ proc, job }) =>
    spawn(
      { name: 'stencilSweeps', scope: new ExactScope(proc), retries: 0 },
      stencilSweeps,
      packJob(job, sync, parties),
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

/** The blocks it is given, as new views of the same memory (sent as such, nothing copied). */
function blockViews(...blocks: Block[]): Block[] {
  return blocks.map((b) => ({
    data: b.data,
    shape: b.shape,
    strides: b.strides,
    offset: b.offset,
  }));
}

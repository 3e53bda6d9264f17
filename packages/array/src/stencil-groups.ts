import { type DTask, ExactScope, type Processor } from '@dtask/core';
import type { Block } from './kernels.js';
import type { SpawnFn } from './placement.js';
import { stencilBlock } from './stencil-kernel.js';
import type { StencilGroup, StencilPlan } from './stencil-plan.js';

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
 * `stencilSteps` over blocks all in this process's shared memory: each step runs as one task
 * per processor holding blocks of the array it writes (owner computes), which runs the step's
 * kernel over each of its blocks in turn, reading every neighbour, on its own processor or
 * another thread's, in place (the blocks are views of shared memory; no halo strip is cut or
 * moved). A step's tasks start once every task of the step before is done, so each reads the
 * values the earlier step left and none writes a block another still reads. Per block this
 * costs a loop turn, not a task: the per-task cost (messages, scheduling) is paid once per
 * processor and step. Resolves when the last step is done; rejects with the first failure.
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
  const viewOf = (x: unknown) => values.get(x as DTask<Block>) ?? x;
  let previous: DTask<unknown>[] = [];
  for (let s = 0; s < steps.length; s++) {
    const byProc = new Map<string, { proc: Processor; group: StencilGroup; blocks: unknown[] }>();
    steps[s].out.forEach((chunk, k) => {
      const proc = chunk.processor as Processor;
      let entry = byProc.get(proc.id);
      if (entry === undefined) {
        entry = { proc, group: { group: [] }, blocks: [] };
        byProc.set(proc.id, entry);
      }
      const { plan, args } = planOf(s, k);
      entry.group.group.push({ plan, blocks: 1 + args.length });
      entry.blocks.push(viewOf(chunk), ...args.map(viewOf));
    });
    const tasks: DTask<unknown>[] = [];
    for (const { proc, group, blocks } of byProc.values()) {
      tasks.push(
        spawn(
          {
            name: 'stencilBlocks',
            scope: new ExactScope(proc),
            ...(previous.length > 0 ? { syncdeps: previous } : {}),
          },
          stencilBlock,
          group,
          null,
          ...blocks,
        ),
      );
    }
    previous = tasks;
  }
  // Each step waited for the one before: the last step's tasks settle last.
  await Promise.all(previous.map((t) => t.fetch({ raw: true })));
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

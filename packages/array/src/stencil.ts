import { ArgumentError, type DTask } from '@dtask/core';
import { InOut, spawnDatadeps } from '@dtask/datadeps';
import { gridIndices } from './blocks.js';
import { DArray } from './darray.js';
import { refuseView } from './indexing.js';
import type { Block } from './kernels.js';
import { type SpawnFn, spawnerOf } from './placement.js';
import { check } from './stencil-check.js';
import { type CompiledKernel, compileKernel, type StencilKernel } from './stencil-compile.js';
import { copyBlock } from './stencil-copies.js';
import { stepsInGroups } from './stencil-groups.js';
import { stencilBlock } from './stencil-kernel.js';
import type { StencilOptions } from './stencil-options.js';
import { home, planBlock, usedInputs, type Versions } from './stencil-plan-block.js';

export type { StencilOptions } from './stencil-options.js';

/** One step of `stencilSteps`: `out` (a name) gets `kernel` at every element. */
export interface StencilStep {
  /** The name of the array this step writes. */
  out: string;
  /** The kernel (as `stencil`'s). */
  kernel: StencilKernel;
}

/**
 * Dagger's `@stencil`, allocating: a new `DArray` shaped, blocked and typed like the first
 * input whose element `idx` is `kernel(at, idx)`, where `at.NAME(o₀, o₁, …)` reads input
 * `NAME` at `idx + o` (offsets within `radius`; past the edges, the boundary condition).
 * Returns at once: one task per block, taking its own blocks and only the halo strips of the
 * neighbouring blocks (small tasks cut them where those blocks live).
 */
export function stencil(
  inputs: Readonly<Record<string, DArray>>,
  kernel: StencilKernel,
  options: StencilOptions = {},
): DArray {
  const what = 'stencil(inputs, kernel, options)';
  const c = check(inputs, options, what);
  const compiled = compileKernel(kernel, c.names, c.radius, what);
  const first = c.arrays[0];
  const spawn = spawnerOf(first.context);
  const chunks = gridIndices(first.grid).map((g, k) => {
    const where = first.chunks[k].processor?.id;
    const { plan, args } = planBlock(c, compiled, g, k, null, spawn, first.dtype, where);
    // Argument 2 is the first input's own block: while it is still being made, the task
    // follows it to wherever the scheduler places it (see `home`).
    return spawn(home(first.chunks[k], 2), stencilBlock, plan, null, ...args) as DTask<Block>;
  });
  return new DArray(first.shape, first.blocks, first.dtype, chunks, first.context);
}

/**
 * Dagger's `@stencil` inside `spawn_datadeps`: the steps in order, each writing the named
 * array `out` in place (its blocks stay where they live) from the arrays' values after the
 * previous step, so the result equals running the steps one after the other over the whole
 * array. Blocks in worker processes are written through a datadeps region (`InOut`), a task
 * per block taking its own block (written in place) and the neighbours' halo strips. Blocks
 * in this process's shared memory are written by one task per step and processor holding
 * blocks of the array the step writes (owner computes), which runs the kernel over those
 * blocks in turn, reading every neighbour in place; a step's tasks wait for the step before.
 * A step that reads the array it writes with offsets reads a snapshot of it as it was before
 * the step (Dagger's `stencil_snapshot`: a copy of each block, made where it lives), so no
 * block sees a neighbour's new values; in shared memory such steps take a task per block
 * that waits for what it reads and for the earlier readers of the block it writes
 * (datadeps' rule, tracked per block). Resolves when every step is done; rejects with the
 * first failure.
 */
export async function stencilSteps(
  arrays: Readonly<Record<string, DArray>>,
  steps: readonly StencilStep[],
  options: StencilOptions = {},
): Promise<void> {
  const what = 'stencilSteps(arrays, steps, options)';
  const c = check(arrays, options, what);
  if (!Array.isArray(steps) || steps.length === 0) {
    throw new ArgumentError(`${what}: steps must be a non-empty list of { out, kernel }`);
  }
  const compiled = steps.map((step, s) => {
    const at = `${what}: step ${s}`;
    if (typeof step !== 'object' || step === null || !c.names.includes(step.out)) {
      throw new ArgumentError(
        `${at}: out must name one of the arrays (${c.names.join(', ')}); got ${String(step?.out)}`,
      );
    }
    refuseView(arrays[step.out], `${at}: ${step.out}`);
    return compileKernel(step.kernel, c.names, c.radius, at);
  });
  const first = c.arrays[0];
  const spawn = spawnerOf(first.context);
  // Where each block lives, so its tasks run there and only halo strips move.
  await Promise.all(c.arrays.flatMap((a) => a.chunks.map((chunk) => chunk.wait())));
  const shared = c.arrays.every((a) => a.chunks.every((chunk) => chunk.processor?.worker === 1));
  if (!shared) {
    // Blocks in other processes: datadeps writes them where they live (InOut).
    await spawnDatadeps(() => {
      steps.forEach((step, s) => {
        const out = c.arrays[c.names.indexOf(step.out)];
        const snapshot = compiled[s].reads.get(step.out)?.halo
          ? out.chunks.map((chunk) => snapshotOf(spawn, chunk, chunk))
          : undefined;
        gridIndices(first.grid).forEach((g, k) => {
          const where = out.chunks[k].processor?.id;
          const { plan, args } = planBlock(
            c,
            compiled[s],
            g,
            k,
            step.out,
            spawn,
            out.dtype,
            where,
            {
              snapshot,
            },
          );
          spawn(home(out.chunks[k]), stencilBlock, plan, InOut(out.chunks[k]), ...args);
        });
      });
    });
    return;
  }
  if (compiled.every((ck, s) => !ck.reads.get(steps[s].out)?.halo)) {
    // Shared memory: a task per processor and step, its blocks in a loop (stencil-groups.ts),
    // when no step reads the array it writes with offsets (a block would read a neighbour's
    // new values); such steps take the path below.
    const outs = steps.map((step) => c.arrays[c.names.indexOf(step.out)]);
    // The blocks' grid positions, made only when a block is planned: a call laid out as a kept
    // one plans nothing (see stepsInGroups), and a list per block at every call made V8
    // optimise `gridIndices` during some later call.
    let grid: number[][] | undefined;
    // A block's plan depends on the step's kernel and output only: steps that repeat them (a
    // double buffer's two sweeps) share their plans.
    const plans = new Map<StencilKernel, Map<string, ReturnType<typeof planBlock>[]>>();
    const planOf = (s: number, k: number) => {
      const { kernel, out } = steps[s];
      const byOut = plans.get(kernel) ?? new Map<string, ReturnType<typeof planBlock>[]>();
      plans.set(kernel, byOut);
      const list = byOut.get(out) ?? [];
      byOut.set(out, list);
      list[k] ??= planBlock(
        c,
        compiled[s],
        (grid ??= gridIndices(first.grid))[k],
        k,
        out,
        spawn,
        outs[s].dtype,
        undefined,
        undefined,
        true,
      );
      return list[k];
    };
    const chunks = c.arrays.flatMap((a) => a.chunks);
    // The first step with each kernel and output: the later ones repeat its plans.
    const firsts = new Map<StencilKernel, Map<string, number>>();
    const same = steps.map(({ kernel, out }, s) => {
      const byOut = firsts.get(kernel) ?? new Map<string, number>();
      firsts.set(kernel, byOut);
      if (!byOut.has(out)) byOut.set(out, s);
      return byOut.get(out) as number;
    });
    await stepsInGroups(
      spawn,
      chunks,
      outs.map((out, s) => ({ out: out.chunks, same: same[s] })),
      planOf,
      plansKey(c, steps, compiled, chunks),
    );
    return;
  }
  // Shared memory, a task per block: each task writes the block's memory itself, so the order
  // is kept per block here, cheaper than a region's analysis of every argument.
  const versions: Versions = {
    current: new Map(c.names.map((n, i) => [n, [...c.arrays[i].chunks]])),
    readers: new Map(c.names.map((n, i) => [n, c.arrays[i].chunks.map(() => [])])),
  };
  const all: DTask<unknown>[] = [];
  steps.forEach((step, s) => {
    const out = c.arrays[c.names.indexOf(step.out)];
    let snapshot: DTask<Block>[] | undefined;
    if (compiled[s].reads.get(step.out)?.halo) {
      // The step reads what it writes with offsets: every block reads the copies taken before.
      const current = versions.current.get(step.out) as DTask<Block>[];
      const readers = versions.readers.get(step.out) as DTask<unknown>[][];
      snapshot = current.map((value, k) => snapshotOf(spawn, out.chunks[k], value));
      snapshot.forEach((copy, k) => {
        readers[k].push(copy);
        all.push(copy);
      });
    }
    gridIndices(first.grid).forEach((g, k) => {
      const where = out.chunks[k].processor?.id;
      const { plan, args, direct } = planBlock(
        c,
        compiled[s],
        g,
        k,
        step.out,
        spawn,
        out.dtype,
        where,
        { versions, snapshot },
      );
      const previous = (versions.current.get(step.out) as DTask<Block>[])[k];
      const readers = (versions.readers.get(step.out) as DTask<unknown>[][])[k];
      // Written in place once the block's earlier readers are done (datadeps' rule).
      const writer = spawn(
        { ...home(out.chunks[k]), ...(readers.length > 0 ? { syncdeps: readers } : {}) },
        stencilBlock,
        plan,
        previous,
        ...args,
      );
      for (const a of args) if (isTask(a)) all.push(a);
      all.push(writer);
      (versions.current.get(step.out) as DTask<Block>[])[k] = writer;
      (versions.readers.get(step.out) as DTask<unknown>[][])[k] = [];
      for (const name of usedInputs(c, compiled[s], step.out)) {
        if (name !== step.out) (versions.readers.get(name) as DTask<unknown>[][])[k].push(writer);
      }
      for (const [name, flat] of direct) {
        (versions.readers.get(name) as DTask<unknown>[][])[flat].push(writer);
      }
    });
  });
  // Settles like the tasks without bringing their blocks here; the first failure rejects.
  await Promise.all(all.map((t) => t.fetch({ raw: true })));
}

/**
 * A copy of a block as it is now (`value`, the task giving its current contents), made on the
 * processor holding `chunk`: what a step reading the array it writes reads instead.
 */
function snapshotOf(spawn: SpawnFn, chunk: DTask<Block>, value: DTask<Block>): DTask<Block> {
  return spawn({ name: 'stencilSnapshot', ...home(chunk) }, copyBlock, value) as DTask<Block>;
}

/**
 * What the plans of `stencilSteps` over blocks in shared memory depend on besides the blocks'
 * memory, as text: the arrays' names, shapes, blocks, element types and the processors holding
 * their chunks (and which chunks repeat), the radius, the boundary conditions, and each step's
 * output and kernel as compiled (its source, not its function object: a kernel written inline
 * in a loop is a new function at every call). Calls with the same text plan alike.
 */
function plansKey(
  c: ReturnType<typeof check>,
  steps: readonly StencilStep[],
  compiled: readonly CompiledKernel[],
  chunks: readonly DTask<Block>[],
): string {
  const first = new Map<DTask<Block>, number>();
  const repeats: [number, number][] = [];
  chunks.forEach((chunk, i) => {
    const at = first.get(chunk);
    if (at === undefined) first.set(chunk, i);
    else repeats.push([i, at]);
  });
  // Only a boundary's value can be a number JSON cannot hold: those are told apart in the
  // boundaries' own text, and the rest (hundreds of values) is written without a replacer.
  const bcs = JSON.stringify([...c.bcs], (_k, v) =>
    typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))
      ? `\u0000n:${Object.is(v, -0) ? '-0' : v}`
      : v,
  );
  const rest = JSON.stringify([
    c.names,
    c.radius,
    c.arrays.map((a) => [
      a.shape,
      a.blocks.sizes,
      a.dtype,
      a.chunks.map((chunk) => chunk.processor?.id ?? ''),
    ]),
    repeats,
    steps.map((step, s) => [
      step.out,
      compiled[s].source,
      compiled[s].expr,
      compiled[s].sites,
      compiled[s].atName,
      compiled[s].idxName,
      compiled[s].module,
    ]),
  ]);
  return `${bcs}\n${rest}`;
}

function isTask(x: unknown): x is DTask<unknown> {
  return typeof x === 'object' && x !== null && typeof (x as DTask<unknown>).fetch === 'function';
}

import { ArgumentError, type DTask, ExactScope } from '@dtask/core';
import { InOut, spawnDatadeps } from '@dtask/datadeps';
import { blockRanges, columnMajorStrides, gridIndices } from './blocks.js';
import { Boundary, type BoundarySpec, Pad } from './boundary.js';
import { DArray } from './darray.js';
import { refuseView } from './indexing.js';
import type { Block } from './kernels.js';
import { describe, sameList } from './parts.js';
import { type SpawnFn, spawnerOf } from './placement.js';
import { type CompiledKernel, compileKernel, type StencilKernel } from './stencil-compile.js';
import { stepsInGroups } from './stencil-groups.js';
import { copyBlock, haloStrip, type StencilPlan, stencilBlock } from './stencil-kernel.js';

/** Options of `stencil` and `stencilSteps`. */
export interface StencilOptions {
  /** How far the kernel reads: one integer, or one per dimension; default 1. */
  radius?: number | readonly number[];
  /**
   * What reads past the array's edges give: one condition for every array, one per
   * dimension (an array), or per array name (`{ A: new Wrap(), B: [new Clamp(), new Pad(0)] }`);
   * default `new Pad(0)`.
   */
  boundary?:
    | Boundary
    | readonly Boundary[]
    | Readonly<Record<string, Boundary | readonly Boundary[]>>;
}

/** One step of `stencilSteps`: `out` (a name) gets `kernel` at every element. */
export interface StencilStep {
  /** The name of the array this step writes. */
  out: string;
  /** The kernel (as `stencil`'s). */
  kernel: StencilKernel;
}

interface Checked {
  names: string[];
  arrays: DArray[];
  radius: number[];
  bcs: Map<string, BoundarySpec[]>;
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
    const grid = gridIndices(first.grid);
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
        grid[k],
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
    await stepsInGroups(
      spawn,
      c.arrays.flatMap((a) => a.chunks),
      outs.map((out) => ({ out: out.chunks })),
      planOf,
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
 * `stencilSteps`' ordering: per array, the task whose result is each block's current value
 * (the chunk, then the last step writing it in place) and the tasks reading that value since.
 */
interface Versions {
  current: Map<string, DTask<Block>[]>;
  readers: Map<string, DTask<unknown>[][]>;
}

/**
 * A copy of a block as it is now (`value`, the task giving its current contents), made on the
 * processor holding `chunk`: what a step reading the array it writes reads instead.
 */
function snapshotOf(spawn: SpawnFn, chunk: DTask<Block>, value: DTask<Block>): DTask<Block> {
  return spawn({ name: 'stencilSnapshot', ...home(chunk) }, copyBlock, value) as DTask<Block>;
}

function isTask(x: unknown): x is DTask<unknown> {
  return typeof x === 'object' && x !== null && typeof (x as DTask<unknown>).fetch === 'function';
}

/** The checks at the call: same shapes and blockings, the radius, the boundary conditions. */
function check(
  inputs: Readonly<Record<string, DArray>>,
  options: StencilOptions,
  what: string,
): Checked {
  if (typeof inputs !== 'object' || inputs === null || Object.keys(inputs).length === 0) {
    throw new ArgumentError(`${what}: pass the arrays by name, e.g. { A }`);
  }
  const names = Object.keys(inputs);
  const arrays = names.map((n) => inputs[n]);
  arrays.forEach((a, i) => {
    if (!(a instanceof DArray)) {
      throw new ArgumentError(`${what}: ${names[i]} must be a DArray; got ${String(a)}`);
    }
  });
  const first = arrays[0];
  const nd = first.shape.length;
  if (nd === 0) throw new ArgumentError(`${what}: ${names[0]} has no dimensions (shape [])`);
  arrays.forEach((a, i) => {
    if (!sameList(a.shape, first.shape) || !sameList(a.blocks.sizes, first.blocks.sizes)) {
      throw new ArgumentError(
        `${what}: every array must have the same shape and blocks; ${names[0]} is ${describe(first)} but ${names[i]} is ${describe(a)} (re-block with ${names[i]}.reblock(${names[0]}.blocks))`,
      );
    }
  });
  const r = options.radius ?? 1;
  const radius = typeof r === 'number' ? new Array<number>(nd).fill(r) : [...r];
  if (radius.length !== nd || radius.some((x) => !Number.isInteger(x) || x < 1)) {
    throw new ArgumentError(
      `${what}: radius must be a positive integer or one per dimension (${nd}); got ${String(r)}`,
    );
  }
  // The smallest block along each dimension (the last one may be short).
  const smallest = first.shape.map((n, d) => {
    const b = first.blocks.sizes[d];
    return Math.min(b, n - (Math.ceil(n / b) - 1) * b);
  });
  radius.forEach((x, d) => {
    if (x > smallest[d]) {
      throw new ArgumentError(
        `${what}: radius ${x} along dimension ${d} is larger than a block of ${describe(first)} (the smallest is ${smallest[d]} there); use larger blocks or a smaller radius`,
      );
    }
  });
  const bcs = new Map<string, BoundarySpec[]>();
  const given = options.boundary ?? new Pad(0);
  names.forEach((name, i) => {
    const own =
      given instanceof Boundary || Array.isArray(given)
        ? given
        : ((given as Record<string, Boundary | Boundary[]>)[name] ?? new Pad(0));
    const list = own instanceof Boundary ? new Array<Boundary>(nd).fill(own) : own;
    if (!Array.isArray(list) || list.length !== nd || list.some((b) => !(b instanceof Boundary))) {
      throw new ArgumentError(
        `${what}: the boundary of ${name} must be one condition (new Wrap(), new Pad(0), …) or one per dimension (${nd}); got ${String(own)}`,
      );
    }
    const specs = list.map((b: Boundary, d: number) => {
      b.checkDtype(arrays[i].dtype, `${what}: ${name} (${describe(arrays[i])})`);
      const spec = b.spec();
      const n = first.shape[d];
      const needs =
        spec.kind === 'linear'
          ? 2
          : (spec.kind === 'reflect' || spec.kind === 'antireflect') && !spec.symmetric
            ? radius[d] + 1
            : 1;
      if (n < needs) {
        throw new ArgumentError(
          `${what}: ${b.constructor.name} along dimension ${d} of ${name} needs at least ${needs} elements there; ${name} is ${describe(arrays[i])}`,
        );
      }
      return spec;
    });
    bcs.set(name, specs);
  });
  return { names, arrays, radius, bcs };
}

/** The plan and arguments of the task of block `g` (flat index `k`): own blocks and strips. */
function planBlock(
  c: Checked,
  compiled: CompiledKernel,
  g: readonly number[],
  k: number,
  outName: string | null,
  spawn: SpawnFn,
  dtype: string,
  where: string | undefined,
  reading: { versions?: Versions; snapshot?: DTask<Block>[] } = {},
  allInPlace = false,
): { plan: StencilPlan; args: unknown[]; direct: [string, number][] } {
  const first = c.arrays[0];
  const nd = g.length;
  const ranges = blockRanges(first.shape, first.blocks, g);
  const shape = ranges.map(([a, b]) => b - a);
  const inputs: StencilPlan['inputs'] = [];
  const args: unknown[] = [];
  const codes = neighbourCodes(nd);
  const gridStrides = columnMajorStrides(first.grid);
  const used = usedInputs(c, compiled, outName);
  const direct: [string, number][] = [];
  c.names.forEach((name, i) => {
    if (!used.includes(name)) return;
    const read = compiled.reads.get(name) ?? { halo: false, offsets: [] };
    const array = c.arrays[i];
    const bc = c.bcs.get(name) as BoundarySpec[];
    // A step reading what it writes with offsets reads the snapshot (never written: nothing
    // to order on it), and writes `out` as a separate block.
    const snapshot = name === outName ? reading.snapshot : undefined;
    const versions = snapshot === undefined ? reading.versions : undefined;
    const isOut = name === outName && snapshot === undefined;
    const present: { code: number[]; lo?: number[] }[] = [];
    const value = (flat: number) =>
      snapshot?.[flat] ?? versions?.current.get(name)?.[flat] ?? array.chunks[flat];
    if (!isOut) args.push(value(k));
    if (read.halo) {
      for (const code of codes) {
        if (!needed(code, read.offsets, bc)) continue;
        const nb = neighbour(g, code, first.grid, bc);
        if (nb === null) continue;
        const nbRanges = blockRanges(first.shape, first.blocks, nb);
        const lo = code.map((cd, d) =>
          cd < 0 ? nbRanges[d][1] - nbRanges[d][0] - c.radius[d] : 0,
        );
        const hi = code.map((cd, d) =>
          cd < 0 ? nbRanges[d][1] - nbRanges[d][0] : cd > 0 ? c.radius[d] : shape[d],
        );
        const flat = nb.reduce((acc, x, d) => acc + x * gridStrides[d], 0);
        if (allInPlace || (where !== undefined && array.chunks[flat].processor?.id === where)) {
          // A neighbour on this task's own processor: read in place, nothing moves.
          present.push({ code, lo });
          args.push(value(flat));
          if (snapshot === undefined) direct.push([name, flat]);
          continue;
        }
        present.push({ code });
        const strip = spawn(
          { name: 'haloStrip', ...home(array.chunks[flat], 0) },
          haloStrip,
          value(flat),
          lo,
          hi,
        );
        versions?.readers.get(name)?.[flat].push(strip);
        args.push(strip);
      }
    }
    inputs.push({
      padded: read.halo,
      isOut,
      codes: present,
      bc,
      low: g.map((x, d) => x === 0 && bc[d].kind !== 'wrap'),
      high: g.map((x, d) => x === first.grid[d] - 1 && bc[d].kind !== 'wrap'),
    });
  });
  const order = used;
  const plan: StencilPlan = {
    source: compiled.source,
    expr: compiled.expr,
    sites: compiled.sites.map(({ name, args, literal }) => ({
      input: order.indexOf(name),
      args,
      literal,
    })),
    atName: compiled.atName,
    idxName: compiled.idxName,
    module: compiled.module,
    names: order,
    dtype,
    shape,
    start: ranges.map(([a]) => a),
    radius: c.radius,
    inputs,
  };
  // The worker's cache key of the compiled loop (as stencilBlock would make it).
  plan.key = JSON.stringify([
    plan.source,
    plan.expr,
    plan.sites,
    shape,
    plan.radius,
    plan.idxName,
    inputs.map((i) => i.padded),
    plan.module,
    plan.names,
  ]);
  return { plan, args, direct };
}

/**
 * Spawn options that run a task on the processor holding `chunk`. While that is not known yet
 * (its task is not placed), and `arg` is the task's argument position of `chunk`, the task
 * runs where the scheduler finds the chunk's data once it is made (`inPlaceArgs`: the task
 * only reads it), so the caller does not wait and the block does not move.
 */
function home(
  chunk: DTask<Block>,
  arg?: number,
): { name?: string; scope?: ExactScope; inPlaceArgs?: number[] } {
  const proc = chunk.processor;
  if (proc !== undefined) return { scope: new ExactScope(proc) };
  return arg === undefined ? {} : { inPlaceArgs: [arg] };
}

/**
 * The inputs a block task takes: those the kernel reads, and, for the allocating form, the
 * first input's own block in any case, so each new block is made where that block lives.
 */
function usedInputs(c: Checked, compiled: CompiledKernel, outName: string | null): string[] {
  return c.names.filter((n, i) => compiled.reads.has(n) || (outName === null && i === 0));
}

/**
 * Whether a kernel reading `offsets` (null: any, computed at run time) reads the halo region
 * in direction `code`: some offset points that way along every dimension where `code` does.
 * Filling an edge by reflection or extrapolation reads inwards, which in a block thinner
 * than the radius reaches the opposite halo: along such dimensions either side counts.
 */
function needed(
  code: readonly number[],
  offsets: number[][] | null,
  bc: readonly BoundarySpec[],
): boolean {
  if (offsets === null) return true;
  const inwards = bc.map(
    (b) => b.kind === 'reflect' || b.kind === 'antireflect' || b.kind === 'linear',
  );
  return offsets.some((o) =>
    code.every((c, d) => c === 0 || Math.sign(o[d]) === c || (inwards[d] && o[d] !== 0)),
  );
}

/** Every neighbour direction: each dimension -1, 0 or +1, not all 0 (first dimension fastest). */
function neighbourCodes(nd: number): number[][] {
  const out: number[][] = [];
  for (let i = 0; i < 3 ** nd; i++) {
    const code: number[] = [];
    let r = i;
    for (let d = 0; d < nd; d++) {
      code.push((r % 3) - 1);
      r = Math.floor(r / 3);
    }
    if (code.some((x) => x !== 0)) out.push(code);
  }
  return out;
}

/** The grid index of the neighbour of `g` in direction `code`, wrapping where `Wrap` holds; null past an edge. */
function neighbour(
  g: readonly number[],
  code: readonly number[],
  grid: readonly number[],
  bc: readonly BoundarySpec[],
): number[] | null {
  const nb: number[] = [];
  for (let d = 0; d < g.length; d++) {
    let x = g[d] + code[d];
    if (x < 0 || x >= grid[d]) {
      if (bc[d].kind !== 'wrap') return null;
      x = (x + grid[d]) % grid[d];
    }
    nb.push(x);
  }
  return nb;
}

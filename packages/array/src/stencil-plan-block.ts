import { type DTask, ExactScope } from '@dtask/core';
import { blockRanges, columnMajorStrides } from './blocks.js';
import type { BoundarySpec } from './boundary.js';
import type { Block } from './kernels.js';
import type { SpawnFn } from './placement.js';
import type { Checked } from './stencil-check.js';
import type { CompiledKernel } from './stencil-compile.js';
import { haloStrip } from './stencil-copies.js';
import type { StencilPlan } from './stencil-plan.js';

/**
 * `stencilSteps`' ordering: per array, the task whose result is each block's current value
 * (the chunk, then the last step writing it in place) and the tasks reading that value since.
 */
export interface Versions {
  current: Map<string, DTask<Block>[]>;
  readers: Map<string, DTask<unknown>[][]>;
}

/** The plan and arguments of the task of block `g` (flat index `k`): own blocks and strips. */
export function planBlock(
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
    simd: compiled.simd,
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
export function home(
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
export function usedInputs(c: Checked, compiled: CompiledKernel, outName: string | null): string[] {
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

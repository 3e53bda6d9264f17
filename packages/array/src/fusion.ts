import { type Context, currentTaskQueue, type DTask, getOptions, inTask } from '@dtask/core';
import { spawnBatch, spawnGroup } from '@dtask/core/plugin';
import type { DType } from './dtype.js';
import type { BinaryOp } from './elementwise.js';
import type { FusedExpr, FusedNode } from './fused-expr.js';
import { fusedGroup, fusedGroupSimd } from './fused-group-kernel.js';
import { fusedBlock } from './fused-kernel.js';
import { fusedBlockSimd } from './fused-simd-kernel.js';
import type { Block } from './kernels.js';
import { plannedOwnerOf } from './placement.js';
import { type SimdPlan, simdPlanOf } from './simd-plan.js';

export type { FusedExpr, FusedNode } from './fused-expr.js';

/** An element-wise chain not yet made into tasks (see `DArray`'s fusion). */
export interface Pending {
  expr: FusedExpr;
  /** The context its tasks go to (undefined: where `spawn` goes). */
  context: Context | undefined;
  /** Taken into a later operation's expression: not made on its own unless read. */
  absorbed: boolean;
  /** What spawning its tasks threw, thrown again to whoever reads its chunks. */
  error?: unknown;
}

/**
 * The most nodes, and the most input arrays, one fused task takes: a longer chain has its
 * operand made first (one task per block) and continues from it, so no program grows without
 * bound (`for (…) x = x.add(1)` in one synchronous loop).
 */
export const MAX_FUSED_NODES = 64;
const MAX_FUSED_INPUTS = 16;

/** The expression that reads an array's chunks as they are. */
export function inputExpr(chunks: readonly DTask<Block>[]): FusedExpr {
  return { inputs: [chunks], scalars: [], root: { kind: 'input', index: 0 }, size: 1 };
}

/** Whether `parts` can be fused into one expression within the size bounds. */
export function fitsTogether(parts: readonly FusedExpr[]): boolean {
  let size = 1;
  const inputs = new Set<readonly DTask<Block>[]>();
  for (const p of parts) {
    size += p.size;
    for (const i of p.inputs) inputs.add(i);
  }
  return size <= MAX_FUSED_NODES && inputs.size <= MAX_FUSED_INPUTS;
}

/** `parts` side by side: shared inputs once, each part's root renumbered into the whole. */
function merge(parts: readonly FusedExpr[]): {
  inputs: (readonly DTask<Block>[])[];
  scalars: number[];
  roots: FusedNode[];
  size: number;
} {
  const inputs: (readonly DTask<Block>[])[] = [];
  const scalars: number[] = [];
  const roots: FusedNode[] = [];
  let size = 0;
  for (const p of parts) {
    const inputIndex: number[] = [];
    for (const chunks of p.inputs) {
      let at = inputs.indexOf(chunks);
      if (at < 0) at = inputs.push(chunks) - 1;
      inputIndex.push(at);
    }
    const scalarBase = scalars.length;
    for (const x of p.scalars) scalars.push(x);
    roots.push(renumber(p.root, inputIndex, scalarBase));
    size += p.size;
  }
  return { inputs, scalars, roots, size };
}

/** `node` with its inputs renumbered by `inputIndex` and its scalars moved up by `scalarBase`. */
function renumber(node: FusedNode, inputIndex: readonly number[], scalarBase: number): FusedNode {
  switch (node.kind) {
    case 'input':
      return inputIndex[node.index] === node.index
        ? node
        : { kind: 'input', index: inputIndex[node.index] };
    case 'scalar':
      return scalarBase === 0 ? node : { kind: 'scalar', index: scalarBase + node.index };
    case 'binary': {
      const left = renumber(node.left, inputIndex, scalarBase);
      const right = renumber(node.right, inputIndex, scalarBase);
      return left === node.left && right === node.right ? node : { ...node, left, right };
    }
    case 'map': {
      const args = node.args.map((a) => renumber(a, inputIndex, scalarBase));
      return args.every((a, k) => a === node.args[k]) ? node : { ...node, args };
    }
  }
}

/** `left op right` element-wise (`right` an expression or a number), of `dtype`. */
export function binaryExpr(
  left: FusedExpr,
  right: FusedExpr | number,
  op: BinaryOp,
  dtype: DType,
): FusedExpr {
  const r: FusedExpr =
    typeof right === 'number'
      ? { inputs: [], scalars: [right], root: { kind: 'scalar', index: 0 }, size: 1 }
      : right;
  const m = merge([left, r]);
  return {
    inputs: m.inputs,
    scalars: m.scalars,
    root: { kind: 'binary', op, left: m.roots[0], right: m.roots[1], dtype },
    size: m.size + 1,
  };
}

/** `f(x, ...ys)` element-wise over `args`, `f` given as its source text, of `dtype`. */
export function mapExpr(args: readonly FusedExpr[], source: string, dtype: DType): FusedExpr {
  const m = merge(args);
  return {
    inputs: m.inputs,
    scalars: m.scalars,
    root: { kind: 'map', source, args: m.roots, dtype },
    size: m.size + 1,
  };
}

const OPERATOR: Record<BinaryOp, string> = { add: '+', sub: '-', mul: '*', div: '/' };

/**
 * What storing a value in a block of each dtype does, as text around an expression: float32
 * rounds, the integers truncate and wrap to their width (Julia's fixed-size integer arithmetic).
 */
const ROUNDING: Record<DType, [string, string]> = {
  float64: ['', ''],
  float32: ['Math.fround(', ')'],
  int32: ['(', ') | 0'],
  uint32: ['(', ') >>> 0'],
  int16: ['((', ') << 16) >> 16'],
  uint16: ['(', ') & 65535'],
  int8: ['((', ') << 24) >> 24'],
  uint8: ['(', ') & 255'],
  // Complex arrays never fuse (their chains run unfused, `complex.ts`).
  complex128: ['', ''],
  complex64: ['Math.fround(', ')'],
};

/**
 * The source text of the per-block program `fusedBlock` runs for `expr` (a function of
 * `notNumber` making the function of the block's arrays): one loop computing
 * the whole expression per element. Each intermediate is rounded to its operation's dtype
 * (`Math.fround` for float32, truncating and wrapping for the integers: what storing it in its
 * own block did), so the
 * result is the same to the bit as one task per operation. A map's `f` runs on the values in
 * the same order, and a value that is not a number fails as `mapBlock` fails.
 */
export function programOf(expr: FusedExpr): string {
  const functions: string[] = [];
  const lines: string[] = [];
  let temps = 0;
  const rounded = (text: string, dtype: DType) =>
    `${ROUNDING[dtype][0]}${text}${ROUNDING[dtype][1]}`;
  const emit = (node: FusedNode): string => {
    switch (node.kind) {
      case 'input':
        return `x${node.index}[i]`;
      case 'scalar':
        return `s${node.index}`;
      case 'binary': {
        const text = `${emit(node.left)} ${OPERATOR[node.op]} ${emit(node.right)}`;
        const t = `t${temps++}`;
        lines.push(`const ${t} = ${rounded(text, node.dtype)};`);
        return t;
      }
      case 'map': {
        let f = functions.indexOf(node.source);
        if (f < 0) f = functions.push(node.source) - 1;
        const args = node.args.map(emit).join(', ');
        const t = `t${temps++}`;
        lines.push(
          `let ${t} = f${f}(${args});`,
          `if (typeof ${t} !== 'number') ${t} = notNumber(${t}, '${node.dtype}');`,
          ...(node.dtype === 'float64' ? [] : [`${t} = ${rounded(t, node.dtype)};`]),
        );
        return t;
      }
    }
  };
  const result = emit(expr.root);
  const xs = expr.inputs.map((_, k) => `x${k}`).join(', ');
  const ss = expr.scalars.map((_, k) => `const s${k} = scalars[${k}];`).join(' ');
  return [
    // `notNumber` (given by `fusedBlock`): what a map's f returned that is not a number.
    '((notNumber) => {',
    ...functions.map((source, k) => `const f${k} = (${source});`),
    `return (out, n, scalars, ${xs}) => {`,
    ss,
    'for (let i = 0; i < n; i++) {',
    ...lines,
    `out[i] = ${result};`,
    '}',
    '};',
    '})',
  ].join('\n');
}

/** A chain's per-block program and SIMD plan, as `spawnFused` sends them (see `planned`). */
interface Planned {
  readonly program: string;
  readonly plan: SimdPlan | undefined;
}

/** The most chains whose program and plan are kept (`planned`): the oldest go past it. */
const PLANS_KEPT = 256;
const plans = new Map<string, Planned>();

/**
 * `expr`'s program (`programOf`) and SIMD plan (`simdPlanOf`) as an array of `dtype`, made once
 * per kind of chain and kept (the last 256 kinds): an operation repeated (`a.mul(2)` in a loop)
 * plans nothing again. The key is what the two read of `expr`: its nodes, its inputs' count and
 * its scalars' values (a plan folds numbers and checks that float32 holds them exactly).
 */
export function planned(expr: FusedExpr, dtype: DType): Planned {
  let key = `${dtype} ${expr.inputs.length}`;
  for (const x of expr.scalars) key += Object.is(x, -0) ? ' -0' : ` ${x}`;
  key += `|${shapeKey(expr.root)}`;
  let found = plans.get(key);
  if (found === undefined) {
    found = { program: programOf(expr), plan: simdPlanOf(expr, dtype) };
    if (plans.size >= PLANS_KEPT) plans.delete(plans.keys().next().value as string);
    plans.set(key, found);
  }
  return found;
}

/**
 * `node`'s structure as text, one text per structure: an operation and dtype are names; a
 * map's source goes with its length before it, so no source can read as another structure.
 */
function shapeKey(node: FusedNode): string {
  switch (node.kind) {
    case 'input':
      return `x${node.index}`;
    case 'scalar':
      return `s${node.index}`;
    case 'binary':
      return `(${shapeKey(node.left)} ${node.op} ${node.dtype} ${shapeKey(node.right)})`;
    case 'map': {
      let key = `[${node.dtype} ${node.source.length} ${node.source}`;
      for (const a of node.args) key += ` ${shapeKey(a)}`;
      return `${key}]`;
    }
  }
}

/**
 * The chunks of `expr` as an array of `dtype`: each block made by the fused program where the
 * block of its first input lives (owner computes); in WebAssembly SIMD where the chain has a
 * SIMD program (simd-plan.ts: float arithmetic), the same values. Each run of consecutive
 * blocks placed on one thread (a thread's blocks: placement keeps them together) is one group
 * task there (`spawnGroup`), whose runner calls the block kernel once per block, the lead
 * arguments (program, plan, dtype, scalars) sent once: the chunks are its output handles.
 * A run of one block, blocks whose thread is not known yet or on a device, and any spawned
 * inside a task or a task queue (whose scheduler may be on another thread, or which orders
 * tasks one by one) get a task each, spawned a run at a time (`spawnBatch`). Into `context`
 * (undefined: where `spawn` goes), in the blocks' order.
 */
export function spawnFused(
  expr: FusedExpr,
  dtype: DType,
  context: Context | undefined,
): DTask<Block>[] {
  const { program, plan } = planned(expr, dtype);
  const scalars = [...expr.scalars];
  const inputs = expr.inputs;
  const first = inputs[0];
  const lead: unknown[] =
    plan === undefined ? [program, dtype, scalars] : [program, plan, dtype, scalars];
  const grouped = !inTask() && currentTaskQueue() === undefined;
  const out: DTask<Block>[] = [];
  let from = 0;
  let options: { scope?: unknown } | undefined;
  for (let k = 0; k <= first.length; k++) {
    const where = k < first.length ? plannedOwnerOf(first[k], lead.length) : undefined;
    if (k > 0 && (where !== options || k === first.length)) {
      // A run of one block (a cyclic placement's) is a task: a group would add its handle.
      const group = grouped && k - from > 1 && options?.scope !== undefined;
      const spawnRun = group ? spawnRunGroup : spawnRunTasks;
      spawnRun(context, options as object, lead, inputs, from, k, out);
      from = k;
    }
    options = where;
  }
  return out;
}

/** Blocks `from` to `to` (exclusive) of `inputs` through the kernel, a task each (`spawnBatch`). */
function spawnRunTasks(
  context: Context | undefined,
  options: object,
  lead: readonly unknown[],
  inputs: readonly (readonly DTask<Block>[])[],
  from: number,
  to: number,
  out: DTask<Block>[],
): void {
  const run: unknown[][] = [];
  for (let k = from; k < to; k++) {
    const args = lead.slice();
    for (let i = 0; i < inputs.length; i++) args.push(inputs[i][k]);
    run.push(args);
  }
  const fn = lead.length === 3 ? fusedBlock : fusedBlockSimd;
  spawnBatch(context, options, fn, run, out as DTask<unknown>[]);
}

/** Blocks `from` to `to` (exclusive) of `inputs` through the kernel, as one group task. */
function spawnRunGroup(
  context: Context | undefined,
  options: object,
  lead: readonly unknown[],
  inputs: readonly (readonly DTask<Block>[])[],
  from: number,
  to: number,
  out: DTask<Block>[],
): void {
  const width = inputs.length;
  const args: unknown[] = [lead.length, width, ...lead];
  for (let k = from; k < to; k++) {
    for (let i = 0; i < width; i++) args.push(inputs[i][k]);
  }
  const fn = lead.length === 3 ? fusedGroup : fusedGroupSimd;
  const handles = spawnGroup<Block>(context, options, fn, to - from, args);
  for (const h of handles) out.push(h);
}

/**
 * Whether an element-wise chain may wait for the end of this synchronous run: not inside a
 * task, a task queue or `withOptions` (their spawns take what holds now), nor on a closed
 * context (the spawn throws at the call).
 */
export function canDefer(context: Context | undefined): boolean {
  if (context?.isClosed === true) return false;
  if (inTask() || currentTaskQueue() !== undefined) return false;
  for (const _ in getOptions()) return false;
  return true;
}

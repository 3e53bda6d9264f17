import { ArgumentError, TaskFunctionError } from '@dtask/core';
import { checkFunctionTravel } from '@dtask/core/plugin';
import { Blocks, columnMajorStrides, gridIndices, gridOf } from './blocks.js';
import { DTYPES, type DType } from './dtype.js';
import { requireReal } from './dtype-error.js';
import { binaryBlock } from './kernels.js';
import { type ArrayData, dataOf, describe, type Parts, sameList } from './parts.js';
import { ownerOf, type SpawnFn } from './placement.js';
import { reblockParts } from './slicing.js';

/** The operators of `add`/`sub`/`mul`/`div`. */
export type BinaryOp = 'add' | 'sub' | 'mul' | 'div';

/** Options of the element-wise operations on two arrays. */
export interface ElementwiseOptions {
  /**
   * When the blockings differ, re-block `other` to this array's blocks first (a task per new
   * block, where the data is) instead of throwing `ArgumentError`.
   */
  reblock?: boolean;
}

/**
 * The source text of a self-contained function: `ArgumentError` if it is not a function or
 * not JS source, `TaskFunctionError` naming the variables if it uses its enclosing scope's
 * (core's free-variable check, as `spawn` does), since blocks compile it from its source.
 */
export function functionSource(f: unknown, what: string, expects: string): string {
  if (typeof f !== 'function') throw new ArgumentError(`${what}: f must be a function ${expects}`);
  const verdict = checkFunctionTravel(f);
  if (!verdict.ok && verdict.reason === 'free-variables') {
    throw new TaskFunctionError(
      `${what}: f uses variables of its enclosing scope (${verdict.freeVariables.join(', ')}); ` +
        'it runs where the blocks are, compiled from its source text, so it may use only its ' +
        'parameters and globals. Write the values into it (da.map((x) => x + 3)), use the ' +
        "element-wise operations with a number (da.add(offset)), or build it from a string: new Function('x', 'return x + ' + offset)",
    );
  }
  const source = f.toString();
  try {
    new Function(`return (${source});`);
  } catch {
    throw new ArgumentError(
      `${what}: f must be a self-contained function written in JS (an arrow or function expression) so it can travel as source text; got ${source.slice(0, 60)} (wrap a native function: (x) => Math.sqrt(x))`,
    );
  }
  return source;
}

/**
 * The checks of `a.map(f, ...others)`: `f`'s source text (see `functionSource`); `others` must
 * be arrays of `a`'s shape and blocks, else `ArgumentError`.
 */
export function checkMap(a: ArrayData, f: unknown, others: unknown[]): string {
  for (const x of [a, ...others]) requireReal('map', x, 'da.map(f, ...others)');
  const source = functionSource(f, 'da.map(f, ...others)', '(x, ...ys) => number');
  for (const o of others) {
    if (!isDArray(o) || !sameList(a.shape, o.shape) || !sameBlocking(a, o)) {
      throw new ArgumentError(
        `da.map(f, ...others): every other array must have this array's shape and blocks; got ${describe(a)} and ${isDArray(o) ? describe(o) : String(o)}; re-block with other.reblock(da.blocks)`,
      );
    }
  }
  return source;
}

/**
 * `a op other` element-wise, one task per block, where the operands' shapes or blockings differ
 * (the same ones fuse: `fusion.ts`). `other` is an array of the same number of dimensions whose size along each dimension equals `a`'s or is 1 (broadcast, as
 * Julia's `a .+ b`), blocked like `a` where both sizes agree (else `ArgumentError`, or a
 * re-blocking step with `{ reblock: true }`). The result's dtype is the wider of the two.
 */
export function binaryParts(
  a: ArrayData,
  spawn: SpawnFn,
  other: ArrayData,
  op: BinaryOp,
  options: ElementwiseOptions = {},
): Parts {
  const what = `da.${op}(other)`;
  if (!isDArray(other)) throw new ArgumentError(`${what}: other must be a DArray or a number`);
  const nd = a.shape.length;
  const fits = (d: number) =>
    a.shape[d] === other.shape[d] || a.shape[d] === 1 || other.shape[d] === 1;
  if (other.shape.length !== nd || !a.shape.every((_, d) => fits(d))) {
    throw new ArgumentError(
      `${what}: shapes must be equal or 1 along each dimension (broadcast); got ${describe(a)} and ${describe(other)}`,
    );
  }
  let b = other;
  if (!sameBlocking(a, b)) {
    if (options.reblock !== true) {
      throw new ArgumentError(
        `${what}: blocks must match where the sizes agree; got ${describe(a)} and ${describe(b)}; pass { reblock: true } or re-block with other.reblock(da.blocks)`,
      );
    }
    const to = a.blocks.sizes.map((s, d) =>
      b.shape[d] === 1 ? 1 : a.shape[d] === 1 ? b.blocks.sizes[d] : s,
    );
    const reblocked = reblockParts(b, new Blocks(...to));
    if (reblocked !== undefined) b = dataOf(reblocked, b.context);
  }
  // Along each dimension the result takes the larger operand's size and blocks.
  const shape = a.shape.map((s, d) => Math.max(s, b.shape[d]));
  const blocks = new Blocks(
    ...a.blocks.sizes.map((s, d) => (a.shape[d] === 1 && b.shape[d] !== 1 ? b.blocks.sizes[d] : s)),
  );
  const pick = (x: ArrayData, idx: number[]) => {
    const strides = columnMajorStrides(x.grid);
    let flat = 0;
    for (let d = 0; d < nd; d++) if (x.shape[d] === shape[d]) flat += idx[d] * strides[d];
    return x.chunks[flat];
  };
  const dtype = widerDtype(a.dtype, b.dtype);
  // Each result block is made where the left operand's block lives (owner computes).
  const chunks = gridIndices(gridOf(shape, blocks)).map((idx) => {
    const left = pick(a, idx);
    return spawn(ownerOf(left, 0), binaryBlock, left, pick(b, idx), op, dtype);
  });
  return { shape, blocks, dtype, chunks };
}

/**
 * The dtype of an element-wise operation on `a` and `b`, Julia's `promote_type`: a float beats
 * any integer, the wider float or integer wins, and of a signed and an unsigned integer of one
 * width the unsigned one (int8 with uint8 is uint8; int8 with uint16 is uint16), complex beats
 * real (complex64 with float64 is complex128).
 */
export function widerDtype(a: DType, b: DType): DType {
  // Julia: ComplexF32 with Float64 is ComplexF64.
  if ((a === 'complex64' && b === 'float64') || (a === 'float64' && b === 'complex64')) {
    return 'complex128';
  }
  return DTYPES.indexOf(a) >= DTYPES.indexOf(b) ? a : b;
}

/** Whether `a` and `b` are cut alike along every dimension where their sizes agree. */
export function sameBlocking(a: ArrayData, b: ArrayData): boolean {
  return a.shape.every(
    (n, d) => n !== b.shape[d] || Math.min(n, a.blocks.sizes[d]) === Math.min(n, b.blocks.sizes[d]),
  );
}

/**
 * Whether `x` looks like a `DArray` or its plain data (read without making a pending array's
 * blocks).
 */
export function isDArray(x: unknown): x is ArrayData {
  return (
    typeof x === 'object' && x !== null && 'chunks' in x && Array.isArray((x as ArrayData).shape)
  );
}

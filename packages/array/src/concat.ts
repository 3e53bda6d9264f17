import { ArgumentError, type DTask } from '@dtask/core';
import { Blocks } from './blocks.js';
import { writeBlock } from './copy-kernels.js';
import { type BlockCopy, copyPlanOf } from './copy-plan.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import { requireComplex } from './dtype-error.js';
import { widerDtype } from './elementwise.js';
import { internals } from './internals.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { type Pick, wholeOf } from './selectors.js';

/** Options of `cat`. */
export interface CatOptions {
  /** The dimension to concatenate along, 0-based (Julia's `dims=1` is 0); up to the arrays' rank. */
  dims: number;
}

/**
 * Dagger's `cat(A, B, …; dims)`: the arrays joined along dimension `dims` (0-based; equal to
 * their rank, a new trailing dimension: two vectors side by side). Every other dimension must
 * have the same size. The result is cut by the first array's blocks (size 1 along a new
 * dimension); each result block is one task copying from the input blocks it overlaps, so
 * arrays blocked differently join as well. The dtype is the widest of theirs.
 */
export function cat(arrays: readonly DArray[], options: CatOptions): DArray {
  const what = `cat(arrays, { dims: ${String(options?.dims)} })`;
  if (!Array.isArray(arrays) || arrays.length === 0 || !arrays.every((a) => a instanceof DArray)) {
    throw new ArgumentError(`${what}: arrays must be a non-empty list of DArrays`);
  }
  const first = arrays[0];
  const rank = Math.max(...arrays.map((a) => a.shape.length));
  const dims = options?.dims;
  if (!Number.isInteger(dims) || dims < 0 || dims > rank) {
    throw new ArgumentError(
      `${what}: dims must be an integer 0…${rank} (${rank}: a new trailing dimension) for arrays of rank ${rank}`,
    );
  }
  const nd = Math.max(rank, dims + 1);
  const sizeOf = (a: DArray, d: number) => (d < a.shape.length ? a.shape[d] : 1);
  for (const a of arrays) {
    for (let d = 0; d < nd; d++) {
      if (d !== dims && sizeOf(a, d) !== sizeOf(first, d)) {
        throw new ArgumentError(
          `${what}: dimension mismatch: every dimension but ${dims} must agree; ${describe(first)} and ${describe(a)} differ along dimension ${d}`,
        );
      }
    }
  }
  const shape = Array.from({ length: nd }, (_, d) =>
    d === dims ? arrays.reduce((n, a) => n + sizeOf(a, d), 0) : sizeOf(first, d),
  );
  const blocks = new Blocks(
    ...shape.map((_, d) => (d < first.shape.length ? first.blocks.sizes[d] : 1)),
  );
  const dtype = arrays.reduce((t, a) => widerDtype(t, a.dtype), first.dtype);
  if (isComplex(dtype)) {
    for (const a of arrays) requireComplex('cat', a, 'cat(arrays, { dims })');
  }
  // Every input is copied into its slab of the result; a result block gets the pieces of all
  // the inputs it overlaps.
  const merged = new Map<number, { copy: BlockCopy; tasks: DTask<Block>[] }>();
  let offset = 0;
  for (const a of arrays) {
    const n = sizeOf(a, dims);
    const picks: Pick[] = shape.map((m, d) =>
      d === dims ? { kind: 'range', start: offset, step: 1, count: n, drop: false } : wholeOf(m),
    );
    offset += n;
    if (n === 0) continue;
    // A view copies from its parent's blocks; the planner pairs the dimensions of more than
    // one element in order, so a missing trailing dimension needs nothing.
    const of = internals().viewOf(a);
    const root = of?.parent ?? a;
    const chunks = root.chunks;
    const plan = copyPlanOf(
      { shape, blocks, picks },
      { shape: root.shape, blocks: root.blocks, picks: of?.picks ?? root.shape.map(wholeOf) },
      what,
    );
    for (const b of plan) {
      const entry = merged.get(b.flat);
      const tasks = b.sources.map((k) => chunks[k]);
      if (entry === undefined) merged.set(b.flat, { copy: { ...b, pieces: [...b.pieces] }, tasks });
      else {
        entry.copy.pieces.push(...b.pieces);
        entry.tasks.push(...tasks);
      }
    }
  }
  const spawn = spawnerOf(first.context);
  const result: DTask<Block>[] = [];
  for (const [flat, { copy, tasks }] of merged) {
    result[flat] = spawn(writeBlock, dtype, copy.shape, true, copy.pieces, null, null, ...tasks);
  }
  return new DArray(shape, blocks, dtype, result, first.context);
}

/** Dagger's `hcat(A, B, …)`: `cat(arrays, { dims: 1 })` (vectors become columns). */
export function hcat(...arrays: DArray[]): DArray {
  return cat(arrays, { dims: 1 });
}

/** Dagger's `vcat(A, B, …)`: `cat(arrays, { dims: 0 })`. */
export function vcat(...arrays: DArray[]): DArray {
  return cat(arrays, { dims: 0 });
}

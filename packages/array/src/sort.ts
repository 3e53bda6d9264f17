import { ArgumentError, type DTask } from '@dtask/core';
import { DArray } from './darray.js';
import { requireReal } from './dtype-error.js';
import { functionSource } from './elementwise.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';
import {
  bucketBounds,
  comparatorOf,
  mergeBuckets,
  type SortOrder,
  sampleBlock,
  sortBlock,
  takeRange,
} from './sort-kernels.js';

/** Options of `sort` (Julia's keywords). */
export interface SortOptions {
  /** Descending (Julia's `rev=true`). */
  rev?: boolean;
  /** Sort by `by(x)` (Julia's `by`); self-contained, it travels as source text. */
  by?: (x: number) => number;
  /** The order's "less than" (Julia's `lt`); self-contained. */
  lt?: (x: number, y: number) => boolean;
}

/** Elements each block contributes to the splitters' sample. */
const SAMPLES_PER_BLOCK = 64;

/**
 * Dagger's `sort(A; rev, by, lt)` of a vector: a new `DArray` blocked as `a`, sorted (stable,
 * NaN last as Julia's `isless`). A sample sort: each block is sorted where it lives; splitters
 * from a sample of every block cut the value range into one bucket per block; each block's
 * share of each bucket is cut where it lives, and each result block merges the buckets it
 * overlaps. Resolves once the bucket sizes are known (the result's tasks are then spawned).
 */
export async function sort(a: DArray, options: SortOptions = {}): Promise<DArray> {
  const what = 'sort(da, { rev?, by?, lt? })';
  requireReal(
    'sort',
    a,
    what,
    'complex numbers have no order (Julia: isless(::Complex) is a MethodError); sort real(da) or a key of your own',
  );
  if (!(a instanceof DArray) || a.shape.length !== 1) {
    throw new ArgumentError(
      `${what}: da must be a 1-dimensional DArray (a vector); got ${a instanceof DArray ? describe(a) : String(a)}; sort a view of one column (da.view(':', j)) for a matrix`,
    );
  }
  if (options.rev !== undefined && typeof options.rev !== 'boolean') {
    throw new ArgumentError(`${what}: rev must be a boolean; got ${String(options.rev)}`);
  }
  const order: SortOrder = {
    rev: options.rev === true,
    by: options.by === undefined ? null : functionSource(options.by, `${what}: by`, '(x) => key'),
    lt:
      options.lt === undefined
        ? null
        : functionSource(options.lt, `${what}: lt`, '(x, y) => boolean'),
  };
  const factory = comparatorOf.toString();
  const spawn = spawnerOf(a.context);
  const spawnAny = spawn as unknown as (...x: unknown[]) => DTask<number[]>;
  const sorted = a.chunks.map((c) => spawn(ownerOf(c, 0), sortBlock, c, order, factory));
  const samples = (
    await Promise.all(sorted.map((s) => spawnAny(ownerOf(s, 0), sampleBlock, s, SAMPLES_PER_BLOCK)))
  ).flat();
  const cmp = comparatorOf(order);
  samples.sort(cmp);
  const buckets = a.chunks.length;
  const splitters: number[] = [];
  for (let k = 1; k < buckets && samples.length > 0; k++) {
    splitters.push(
      samples[Math.min(samples.length - 1, Math.floor((k * samples.length) / buckets))],
    );
  }
  const bounds = await Promise.all(
    sorted.map((s) => spawnAny(ownerOf(s, 0), bucketBounds, s, splitters, order, factory)),
  );
  // Bucket k's size, and where it starts in the sorted vector.
  const count = splitters.length + 1;
  const sizes = Array.from({ length: count }, (_, k) =>
    bounds.reduce((n, b) => n + b[k + 1] - b[k], 0),
  );
  const starts = sizes.map((_, k) => sizes.slice(0, k).reduce((x, y) => x + y, 0));
  // Each block's share of each bucket, cut where the block lives (only the non-empty ones).
  const shares = Array.from({ length: count }, (_, k) =>
    sorted.flatMap((s, i) =>
      bounds[i][k + 1] > bounds[i][k]
        ? [spawn(ownerOf(s, 0), takeRange, s, bounds[i][k], bounds[i][k + 1])]
        : [],
    ),
  );
  const n = a.shape[0];
  const size = a.blocks.sizes[0];
  const chunks: DTask<Block>[] = a.chunks.map((_, j) => {
    const [from, to] = [j * size, Math.min((j + 1) * size, n)];
    const plan: { parts: number; lo: number; hi: number }[] = [];
    const pieces: DTask<Block>[] = [];
    for (let k = 0; k < count; k++) {
      const [lo, hi] = [Math.max(from, starts[k]), Math.min(to, starts[k] + sizes[k])];
      if (hi <= lo) continue;
      plan.push({ parts: shares[k].length, lo: lo - starts[k], hi: hi - starts[k] });
      pieces.push(...shares[k]);
    }
    return spawn(mergeBuckets, a.dtype, to - from, plan, order, factory, ...pieces);
  });
  return new DArray(a.shape, a.blocks, a.dtype, chunks, a.context);
}

import { ArgumentError } from '@dtask/core';
import { planAssembly, type Selection } from './assembly-plan.js';
import { type Blocks, checkBlocks } from './blocks.js';
import { assembleBlock } from './layout-kernels.js';
import { type ArrayData, chunkAt, describe, type Parts, sameList } from './parts.js';
import { type SpawnFn, spawnerOf } from './placement.js';

/** One range of `slice`: `[start, end)`, `[start, end, step]` (0-based, half-open) or `':'`. */
export type Range = readonly [number, number] | readonly [number, number, number] | ':';

/** The selections of `ranges` over `a`, or `ArgumentError` naming the bad range and the shape. */
export function selections(a: ArrayData, ranges: readonly Range[]): Selection[] {
  const nd = a.shape.length;
  if (ranges.length !== nd) {
    throw new ArgumentError(
      `da.slice(...selectors): give ${nd} selectors (':', an index, [start, end), [start, end, step] or { indices: [...] }), one per dimension of ${describe(a)}; got ${ranges.length}`,
    );
  }
  return ranges.map((r, d): Selection => {
    const n = a.shape[d];
    if (r === ':') return { start: 0, step: 1, count: n };
    const [start = Number.NaN, end = Number.NaN, step = 1] = Array.isArray(r)
      ? (r as number[])
      : [];
    const shaped =
      Array.isArray(r) &&
      (r.length === 2 || r.length === 3) &&
      [start, end, step].every(Number.isInteger);
    // A range with start ≥ end is empty wherever it starts, as in Julia (5:2), NumPy (a[5:2])
    // and Array.prototype.slice.
    if (shaped && step >= 1 && start >= end) return { start: 0, step: 1, count: 0 };
    if (!shaped || start < 0 || end > n || step < 1) {
      throw new ArgumentError(
        `da.slice(...selectors): range ${d} must be ':' or [start, end(, step)] with 0 ≤ start, end ≤ ${n} and step ≥ 1 (start ≥ end is empty), for ${describe(a)}; got ${JSON.stringify(r)}`,
      );
    }
    return { start, step, count: Math.ceil((end - start) / step) };
  });
}

/**
 * The elements `select` picks from `a`, cut by `outBlocks`: one task per new block, taking
 * only the source blocks it overlaps and copying from them where it runs.
 */
export function assembleParts(
  a: ArrayData,
  spawn: SpawnFn,
  select: readonly Selection[],
  outBlocks: Blocks,
): Parts {
  const chunks = planAssembly(a.shape, a.blocks, select, outBlocks).map((block) =>
    spawn(
      assembleBlock,
      a.dtype,
      block.shape,
      block.plan,
      ...block.sources.map((g) => chunkAt(a, ...g)),
    ),
  );
  return { shape: select.map((s) => s.count), blocks: outBlocks, dtype: a.dtype, chunks };
}

/**
 * `a` cut by `blocks` (`da.reblock`'s work, checked): undefined when they are its blocks (the
 * array itself serves), else one task per new block assembled from the old blocks it overlaps.
 */
export function reblockParts(a: ArrayData, blocks: Blocks): Parts | undefined {
  checkBlocks(a.shape, blocks, `da.reblock(blocks) of ${describe(a)}`);
  if (sameList(blocks.sizes, a.blocks.sizes)) return undefined;
  const all = a.shape.map((count) => ({ start: 0, step: 1, count }));
  return assembleParts(a, spawnerOf(a.context), all, blocks);
}

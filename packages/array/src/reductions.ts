import { ArgumentError, type DTask, fetchAll } from '@dtask/core';
import { Blocks, columnMajorStrides, gridIndices, gridOf, lengthOf } from './blocks.js';
import { functionSource } from './elementwise.js';
import { type ArrayData, describe, type Parts } from './parts.js';
import { ownerOf, type SpawnFn } from './placement.js';
import {
  combineInOrder,
  combineValues,
  reduceBlocks,
  reduceBlocksWhole,
  reduceBlockWhole,
} from './reduce-kernels.js';
import { groupByHome, isSmallWork } from './small-work.js';

/** Options of the reductions: which dimensions to reduce (default: all). */
export interface ReduceOptions {
  /**
   * The dimensions to reduce, 0-based: a list, or one number (Julia's `dims=1`, NumPy's
   * `axis=0`); the result has size 1 along them.
   */
  dims?: number | number[];
  /**
   * Julia's `init`: combined with the result once, and the result over no elements (an empty
   * array or dimension), which is otherwise an `ArgumentError`.
   */
  init?: number;
}

/** What a reduction needs, checked: its dimensions, the source of `f`, the result's layout. */
interface Reduction {
  dims: number[];
  source: string | undefined;
  shape: number[];
  blocks: Blocks;
  scale: number;
}

function checkReduction(
  a: ArrayData,
  op: 'sum' | 'prod' | 'min' | 'max' | 'fn',
  options: ReduceOptions | undefined,
  what: string,
  extra: { mean?: boolean; f?: unknown },
): Reduction {
  const nd = a.shape.length;
  const source =
    op === 'fn' ? functionSource(extra.f, `da.${what}(f)`, '(acc, x) => number') : undefined;
  const given = options?.dims;
  const dims = typeof given === 'number' ? [given] : (given ?? [...Array(nd).keys()]);
  if (!Array.isArray(dims) || dims.some((d) => !Number.isInteger(d) || d < 0 || d >= nd)) {
    throw new ArgumentError(
      `da.${what}({ dims }): dims must be a dimension or a list of dimensions 0…${nd - 1} of ${describe(a)}; got ${JSON.stringify(given)}`,
    );
  }
  if (lengthOf(a.shape) === 0) {
    throw new ArgumentError(
      `da.${what}(): the array ${describe(a)} is empty; pass { init } (Julia's init, e.g. ${op === 'prod' ? '{ init: 1 } for a product' : '{ init: 0 } for a sum'}) for the result over no elements`,
    );
  }
  const shape = a.shape.map((s, d) => (dims.includes(d) ? 1 : s));
  const blocks = new Blocks(...a.blocks.sizes.map((s, d) => (dims.includes(d) ? 1 : s)));
  const scale = extra.mean === true ? lengthOf(shape) / lengthOf(a.shape) : 1;
  return { dims, source, shape, blocks, scale };
}

/** For each result block, the flat indices (in `a.chunks`) of the blocks it combines, in order. */
function inputsOfResultBlocks(a: ArrayData, r: Reduction): number[][] {
  const nd = a.shape.length;
  const gridStrides = columnMajorStrides(a.grid);
  const reducedGrid = a.grid.map((g, d) => (r.dims.includes(d) ? g : 1));
  return gridIndices(gridOf(r.shape, r.blocks)).map((outIndex) =>
    gridIndices(reducedGrid).map((k) => {
      let flat = 0;
      for (let d = 0; d < nd; d++)
        flat += (r.dims.includes(d) ? k[d] : outIndex[d]) * gridStrides[d];
      return flat;
    }),
  );
}

/**
 * A reduction along `dims` (all by default). `op` is `'sum'`, `'prod'`, `'min'`, `'max'` or `'fn'` (with
 * `f`, a self-contained `(acc, x) => number` that is associative); `mean` scales the sums by
 * 1/count. The result is a Float64 array with size 1 along `dims`. A large array: one task per
 * block reduces it where it is, then one task per result block combines the partial results of
 * the blocks it covers. A small one (`isSmallWork`): one task per processor holding its blocks
 * reduces all of them there, then the combine; the same result to the bit.
 */
export function reduceParts(
  a: ArrayData,
  spawn: SpawnFn,
  op: 'sum' | 'prod' | 'min' | 'max' | 'fn',
  options: ReduceOptions | undefined,
  what: string,
  extra: { mean?: boolean; f?: unknown } = {},
): Parts {
  const r = checkReduction(a, op, options, what, extra);
  const inputs = inputsOfResultBlocks(a, r);
  if (isSmallWork(lengthOf(a.shape))) {
    const chunks = inputs.map((ks) => {
      const groups = groupByHome(ks.map((k) => a.chunks[k]));
      const partial = groups.map((g) => spawn(reduceBlocks, r.dims, op, r.source, ...g.chunks));
      const positions = groups.map((g) => g.positions);
      return spawn(combineInOrder, op, r.source, r.scale, positions, ...partial);
    });
    return { shape: r.shape, blocks: r.blocks, dtype: 'float64', chunks };
  }
  const partial = a.chunks.map((c) => spawn(ownerOf(c, 3), reduceBlocks, r.dims, op, r.source, c));
  const chunks = inputs.map((ks) =>
    spawn(combineInOrder, op, r.source, r.scale, null, ...ks.map((k) => partial[k])),
  );
  return { shape: r.shape, blocks: r.blocks, dtype: 'float64', chunks };
}

/**
 * A reduction of every element to one number, combined here in block order from the partial
 * results (no combine task, no fetch of a result block): the same result to the bit as
 * `reduceParts`. A small array (`isSmallWork`): once its blocks are made, one task per
 * processor holding some of them reduces those there. A large one: a task per block, run where
 * its block lives (owner computes), each answering its block's partial result as a number. Argument errors
 * throw at the call.
 */
export function reduceAll(
  a: ArrayData,
  spawn: SpawnFn,
  op: 'sum' | 'prod' | 'min' | 'max' | 'fn',
  what: string,
  extra: { mean?: boolean; f?: unknown } = {},
): Promise<number> {
  const r = checkReduction(a, op, undefined, what, extra);
  const small = isSmallWork(lengthOf(a.shape));
  const chunks = a.chunks;
  const perBlock = small
    ? undefined
    : chunks.map(
        (c) => spawn(ownerOf(c, 2), reduceBlockWhole, op, r.source, c) as unknown as DTask<number>,
      );
  return (async () => {
    let values: ArrayLike<number>;
    if (perBlock !== undefined) values = await fetchAll(perBlock);
    else {
      await Promise.all(chunks.map((c) => c.wait()));
      const homes = groupByHome(chunks);
      const results = await Promise.all(
        homes.map(
          (g) =>
            spawn(reduceBlocksWhole, op, r.source, ...g.chunks) as unknown as DTask<Float64Array>,
        ),
      );
      const inOrder = new Float64Array(chunks.length);
      homes.forEach((g, i) => {
        g.positions.forEach((k, j) => {
          inOrder[k] = results[i][j];
        });
      });
      values = inOrder;
    }
    // The same fold as the combine task of `reduceParts`, over the same partial results.
    return combineValues(op, r.source, r.scale, values);
  })();
}

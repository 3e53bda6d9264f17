import { type Blocks, blockRanges, gridIndices, gridOf } from './blocks.js';
import type { Piece } from './layout-kernels.js';

/** Where one range of a sliced dimension comes from: `start + o·step` for output index `o`. */
export interface Selection {
  /** Source index of output index 0. */
  start: number;
  /** Step between source indices (a positive integer). */
  step: number;
  /** Output elements along the dimension. */
  count: number;
}

/** What one output block is assembled from. */
export interface BlockAssembly {
  /** The output block's grid index. */
  index: number[];
  /** The output block's shape. */
  shape: number[];
  /** One piece per source block it reads. */
  plan: Piece[];
  /** The grid index of each piece's source block. */
  sources: number[][];
}

/**
 * The plan of `slice` and `reblock`: for every block of the output (shape from `select`'s
 * counts, cut by `outBlocks`), the boxes of the source blocks (`shape` cut by `blocks`) it
 * copies. Output index `o` along dimension `d` reads source index `select[d].start + o·step`.
 */
export function planAssembly(
  shape: readonly number[],
  blocks: Blocks,
  select: readonly Selection[],
  outBlocks: Blocks,
): BlockAssembly[] {
  const oshape = select.map((s) => s.count);
  return gridIndices(gridOf(oshape, outBlocks)).map((index) => {
    const out = blockRanges(oshape, outBlocks, index);
    // Per dimension: the source blocks this output range touches, and which output indices.
    const spans = out.map(([oa, ob], d) => {
      const { start, step } = select[d];
      const size = blocks.sizes[d];
      const list: { g: number; lo: number; hi: number }[] = [];
      if (ob <= oa) return list;
      const first = Math.floor((start + oa * step) / size);
      const last = Math.floor((start + (ob - 1) * step) / size);
      for (let g = first; g <= last; g++) {
        const [gs, ge] = [g * size, Math.min((g + 1) * size, shape[d])];
        const lo = Math.max(oa, Math.ceil((gs - start) / step));
        const hi = Math.min(ob, Math.ceil((ge - start) / step));
        if (hi > lo) list.push({ g, lo, hi });
      }
      return list;
    });
    const plan: Piece[] = [];
    const sources: number[][] = [];
    for (const pick of gridIndices(spans.map((l) => l.length))) {
      const parts = pick.map((k, d) => spans[d][k]);
      sources.push(parts.map((p) => p.g));
      plan.push({
        from: parts.map((p, d) => select[d].start + p.lo * select[d].step - p.g * blocks.sizes[d]),
        step: select.map((s) => s.step),
        to: parts.map((p, d) => p.lo - out[d][0]),
        size: parts.map((p) => p.hi - p.lo),
      });
    }
    return { index, shape: out.map(([a, b]) => b - a), plan, sources };
  });
}

import { ArgumentError } from '@dtask/core';
import { type Blocks, blockRanges, columnMajorStrides, gridOf, lengthOf } from './blocks.js';
import type { CopyPiece } from './copy-kernels.js';
import { countOf, indexAt, type Pick } from './selectors.js';

/** One side of a copy: a root array's layout and the picks of the elements it copies. */
export interface CopySide {
  /** The root array's shape. */
  shape: readonly number[];
  /** Its blocking. */
  blocks: Blocks;
  /** One pick per dimension of the root array. */
  picks: readonly Pick[];
}

/** What one destination block gets: the pieces to copy and the source blocks they read. */
export interface BlockCopy {
  /** The destination block's flat grid index (column-major). */
  flat: number;
  /** Its shape. */
  shape: number[];
  /** Whether the pieces write every element of it (its old values are not needed). */
  covered: boolean;
  /** The pieces, in order; `pieces[p]` reads `sources[p]` (unless the source is a number). */
  pieces: CopyPiece[];
  /** The flat grid index of each piece's source block (empty for a number). */
  sources: number[];
}

/** The sizes that count: the picks' counts, dimensions of size 1 left out. */
function axesOf(picks: readonly Pick[]): number[] {
  return picks.map((p, d) => (countOf(p) === 1 ? -1 : d)).filter((d) => d >= 0);
}

/** `[3, 4]` from the picks' counts, size-1 dimensions left out (for messages). */
export function effectiveShape(picks: readonly Pick[]): number[] {
  return picks.map(countOf).filter((n) => n !== 1);
}

interface Group {
  gd: number;
  gs: number;
  dst: number[];
  src: number[];
}

/**
 * The plan of copying the elements `src` picks onto those `dest` picks (`src` undefined: a
 * number fills them). The two selections must have the same sizes once dimensions of size 1
 * are left out (Julia's `A[i, :] = v` takes a vector for a row); they are paired in order.
 * Only destination blocks the selection touches appear. `what` names the call for errors.
 */
export function copyPlanOf(dest: CopySide, src: CopySide | undefined, what: string): BlockCopy[] {
  const dAxes = axesOf(dest.picks);
  const sAxes = src === undefined ? dAxes : axesOf(src.picks);
  const dSizes = dAxes.map((d) => countOf(dest.picks[d]));
  if (dest.picks.some((p) => countOf(p) === 0)) return [];
  if (src !== undefined) {
    const sSizes = sAxes.map((d) => countOf(src.picks[d]));
    if (dSizes.length !== sSizes.length || dSizes.some((n, i) => n !== sSizes[i])) {
      throw new ArgumentError(
        `${what}: dimension mismatch: the destination selects [${dest.picks.map(countOf).join(', ')}] elements but the source has [${src.picks.map(countOf).join(', ')}]; they must agree once dimensions of size 1 are left out (select a region of the source's shape, or reshape the source)`,
      );
    }
  }
  // Per axis: the (destination block, source block) pairs its positions fall in, each with the
  // local indices on both sides, in position order.
  const groupsPerAxis = dAxes.map((d, c) => {
    const e = src === undefined ? -1 : sAxes[c];
    const byKey = new Map<string, Group>();
    const groups: Group[] = [];
    const bd = dest.blocks.sizes[d];
    const bs = e < 0 || src === undefined ? 1 : src.blocks.sizes[e];
    for (let o = 0; o < dSizes[c]; o++) {
      const gi = indexAt(dest.picks[d], o);
      const gd = Math.floor(gi / bd);
      const si = e < 0 || src === undefined ? 0 : indexAt(src.picks[e], o);
      const gs = Math.floor(si / bs);
      const key = `${gd},${gs}`;
      let g = byKey.get(key);
      if (g === undefined) {
        g = { gd, gs, dst: [], src: [] };
        byKey.set(key, g);
        groups.push(g);
      }
      g.dst.push(gi - gd * bd);
      g.src.push(si - gs * bs);
    }
    return groups;
  });
  // Fixed dimensions (size 1): one block and one local index each.
  const fixed = (side: CopySide) =>
    side.picks.map((p, d) => {
      const i = indexAt(p, 0);
      const g = Math.floor(i / side.blocks.sizes[d]);
      return { g, local: i - g * side.blocks.sizes[d] };
    });
  const dFixed = fixed(dest);
  const sFixed = src === undefined ? [] : fixed(src);
  const dGridStrides = columnMajorStrides(gridOf(dest.shape, dest.blocks));
  const sGridStrides = src === undefined ? [] : columnMajorStrides(gridOf(src.shape, src.blocks));
  const out = new Map<number, BlockCopy & { touched: Set<number>[] }>();
  // Every combination of one group per axis is one piece of one destination block.
  const counts = groupsPerAxis.map((g) => g.length);
  const total = lengthOf(counts);
  const pick = counts.map(() => 0);
  for (let n = 0; n < total; n++) {
    const chosen = pick.map((k, c) => groupsPerAxis[c][k]);
    const dIndex = dFixed.map((f) => f.g);
    chosen.forEach((g, c) => {
      dIndex[dAxes[c]] = g.gd;
    });
    const flat = dIndex.reduce((acc, g, d) => acc + g * dGridStrides[d], 0);
    let entry = out.get(flat);
    if (entry === undefined) {
      const shape = blockRanges(dest.shape, dest.blocks, dIndex).map(([a, b]) => b - a);
      entry = {
        flat,
        shape,
        covered: false,
        pieces: [],
        sources: [],
        touched: shape.map(() => new Set<number>()),
      };
      out.set(flat, entry);
    }
    const axes = chosen.map((g, c) => ({
      dd: dAxes[c],
      sd: src === undefined ? -1 : sAxes[c],
      dst: g.dst,
      src: g.src,
    }));
    entry.pieces.push({
      dstFixed: dFixed.map((f) => f.local),
      srcFixed: sFixed.map((f) => f.local),
      axes,
    });
    dFixed.forEach((f, d) => {
      if (!dAxes.includes(d)) entry.touched[d].add(f.local);
    });
    for (const a of axes) for (const i of a.dst) entry.touched[a.dd].add(i);
    if (src !== undefined) {
      const sIndex = sFixed.map((f) => f.g);
      chosen.forEach((g, c) => {
        sIndex[sAxes[c]] = g.gs;
      });
      entry.sources.push(sIndex.reduce((acc, g, d) => acc + g * sGridStrides[d], 0));
    }
    for (let c = 0; c < pick.length; c++) {
      pick[c]++;
      if (pick[c] < counts[c]) break;
      pick[c] = 0;
    }
  }
  return [...out.values()].map(({ touched, ...rest }) => ({
    ...rest,
    covered: touched.every((set, d) => set.size === rest.shape[d]),
  }));
}

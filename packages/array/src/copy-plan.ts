import { ArgumentError } from '@dtask/core';
import { type Blocks, blockRanges, columnMajorStrides, gridOf } from './blocks.js';
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
 * The (destination block, source block) pairs that the positions along one paired axis fall
 * in, each with the local indices on both sides, in position order: destination dimension `d`
 * with source dimension `e` (-1: a number is copied, one source "block").
 */
function axisGroups(
  dest: CopySide,
  src: CopySide | undefined,
  d: number,
  e: number,
  count: number,
): Group[] {
  const dPick = dest.picks[d];
  const bd = dest.blocks.sizes[d];
  const sPick = src === undefined || e < 0 ? undefined : src.picks[e];
  const bs = src === undefined || e < 0 ? 1 : src.blocks.sizes[e];
  // a pair's number: its destination block times the source blocks along `e`, plus its own
  const sBlocks = src === undefined || e < 0 ? 1 : Math.ceil(src.shape[e] / bs) + 1;
  const byKey = new Map<number, Group>();
  const groups: Group[] = [];
  for (let o = 0; o < count; o++) {
    const gi = indexAt(dPick, o);
    const gd = Math.floor(gi / bd);
    const si = sPick === undefined ? 0 : indexAt(sPick, o);
    const gs = Math.floor(si / bs);
    const key = gd * sBlocks + gs;
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
}

/**
 * Per destination block along dimension `d`, how many of its elements the pick reaches (each
 * counted once, however often the pick names it).
 */
function reachedPerBlock(dest: CopySide, d: number, count: number): Int32Array {
  const pick = dest.picks[d];
  const bd = dest.blocks.sizes[d];
  const seen = new Uint8Array(dest.shape[d]);
  const reached = new Int32Array(Math.ceil(dest.shape[d] / bd));
  for (let o = 0; o < count; o++) {
    const gi = indexAt(pick, o);
    if (seen[gi] === 0) {
      seen[gi] = 1;
      reached[Math.floor(gi / bd)]++;
    }
  }
  return reached;
}

/** The block and the local index of a size-1 pick's element, per dimension of `side`. */
function fixedOf(side: CopySide): { g: number[]; local: number[] } {
  const g: number[] = [];
  const local: number[] = [];
  for (let d = 0; d < side.picks.length; d++) {
    const i = indexAt(side.picks[d], 0);
    const b = Math.floor(i / side.blocks.sizes[d]);
    g.push(b | 0); // an int, so that the index lists stay arrays of small integers
    local.push(i - b * side.blocks.sizes[d]);
  }
  return { g, local };
}

/** The flat (column-major) grid index of block `index` with grid strides `strides`. */
function flatOf(index: readonly number[], strides: readonly number[]): number {
  let flat = 0;
  for (let d = 0; d < index.length; d++) flat += index[d] * strides[d];
  return flat;
}

/**
 * The plan of copying the elements `src` picks onto those `dest` picks (`src` undefined: a
 * number fills them). The two selections must have the same sizes once dimensions of size 1
 * are left out (Julia's `A[i, :] = v` takes a vector for a row); they are paired in order.
 * Only destination blocks the selection touches appear. `what` names the call for errors.
 * Plain loops, no closures: a copy with hundreds of blocks runs this once, and V8 compiled
 * the closure-heavy form again and again (each time for tens of ms of its helper threads).
 */
export function copyPlanOf(dest: CopySide, src: CopySide | undefined, what: string): BlockCopy[] {
  const dAxes = axesOf(dest.picks);
  const sAxes = src === undefined ? dAxes : axesOf(src.picks);
  const dSizes = Int32Array.from(dAxes, (d) => countOf(dest.picks[d]));
  if (dest.picks.some((p) => countOf(p) === 0)) return [];
  if (src !== undefined) {
    const sSizes = Int32Array.from(sAxes, (d) => countOf(src.picks[d]));
    if (dSizes.length !== sSizes.length || dSizes.some((n, i) => n !== sSizes[i])) {
      throw new ArgumentError(
        `${what}: dimension mismatch: the destination selects [${dest.picks.map(countOf).join(', ')}] elements but the source has [${src.picks.map(countOf).join(', ')}]; they must agree once dimensions of size 1 are left out (select a region of the source's shape, or reshape the source)`,
      );
    }
  }
  const axes = dAxes.length;
  const groupsPerAxis: Group[][] = [];
  const reached: Int32Array[] = [];
  for (let c = 0; c < axes; c++) {
    groupsPerAxis.push(
      axisGroups(dest, src, dAxes[c], src === undefined ? -1 : sAxes[c], dSizes[c]),
    );
    reached.push(reachedPerBlock(dest, dAxes[c], dSizes[c]));
  }
  // Fixed dimensions (size 1): one block and one local index each.
  const dFixed = fixedOf(dest);
  const sFixed = src === undefined ? { g: [], local: [] } : fixedOf(src);
  const dGridStrides = columnMajorStrides(gridOf(dest.shape, dest.blocks));
  const sGridStrides = src === undefined ? [] : columnMajorStrides(gridOf(src.shape, src.blocks));
  const out: BlockCopy[] = [];
  const byFlat = new Map<number, BlockCopy>();
  // Every combination of one group per axis is one piece of one destination block.
  const counts = Int32Array.from(groupsPerAxis, (g) => g.length);
  let total = 1;
  for (let c = 0; c < axes; c++) total *= counts[c];
  const pick = new Int32Array(axes);
  const dIndex = dFixed.g.slice();
  const sIndex = sFixed.g.slice();
  for (let n = 0; n < total; n++) {
    for (let c = 0; c < axes; c++) dIndex[dAxes[c]] = groupsPerAxis[c][pick[c]].gd;
    const flat = flatOf(dIndex, dGridStrides);
    let entry = byFlat.get(flat);
    if (entry === undefined) {
      // built by push, small integers: one array layout for every block's shape
      const ranges = blockRanges(dest.shape, dest.blocks, dIndex);
      const shape: number[] = [];
      for (let d = 0; d < ranges.length; d++) shape.push((ranges[d][1] - ranges[d][0]) | 0);
      // every element is written when each paired axis reaches all of the block's extent
      // and each size-1 dimension is 1 wide in it
      let covered = true;
      for (let d = 0; d < shape.length && covered; d++) {
        const c = dAxes.indexOf(d);
        covered = c < 0 ? shape[d] === 1 : reached[c][dIndex[d]] === shape[d];
      }
      entry = { flat, shape, covered, pieces: [], sources: [] };
      byFlat.set(flat, entry);
      out.push(entry);
    }
    const pieceAxes: CopyPiece['axes'] = [];
    for (let c = 0; c < axes; c++) {
      const g = groupsPerAxis[c][pick[c]];
      pieceAxes.push({
        dd: dAxes[c],
        sd: src === undefined ? -1 : sAxes[c],
        dst: g.dst,
        src: g.src,
      });
    }
    entry.pieces.push({
      dstFixed: dFixed.local.slice(),
      srcFixed: sFixed.local.slice(),
      axes: pieceAxes,
    });
    if (src !== undefined) {
      for (let c = 0; c < axes; c++) sIndex[sAxes[c]] = groupsPerAxis[c][pick[c]].gs;
      entry.sources.push(flatOf(sIndex, sGridStrides));
    }
    for (let c = 0; c < axes; c++) {
      pick[c]++;
      if (pick[c] < counts[c]) break;
      pick[c] = 0;
    }
  }
  return out;
}

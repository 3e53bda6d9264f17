import { type Intervals, intervalsEqual, intervalsOverlap } from './intervals.js';
import type { NormalSlice } from './slices.js';

/**
 * A part of memory an argument touches: bytes `iv` of `root` (an `ArrayBuffer`,
 * `SharedArrayBuffer`, or an object identity for data without a byte layout), optionally only
 * its field `field`, or for a `ChunkView` the index set `slices` of its source.
 * `lo`/`hi` bound `iv` so most non-overlapping pairs are rejected without a merge.
 */
export interface Footprint {
  readonly root: object;
  readonly field: string | undefined;
  readonly iv: Intervals;
  readonly lo: number;
  readonly hi: number;
  /** For a `ChunkView`: the index set per dimension (`end` may be Infinity for ':'). */
  readonly slices?: readonly NormalSlice[];
  /** The same bytes as a grid of equal rows, when they form one (see `Grid`). */
  readonly grid?: Grid;
  /**
   * For a whole `Chunk` or `DTask` with a triangle/diagonal/band modifier: the elements `(i, j)`
   * of its 2-D data with `lo ≤ j − i < hi` (its data is not here to measure in bytes).
   */
  readonly band?: Band;
}

/** The elements `(i, j)` of a matrix with `lo ≤ j − i < hi` (an aliasing modifier's part). */
export interface Band {
  readonly lo: number;
  readonly hi: number;
}

/**
 * Bytes that form `rows` equal runs of `width` bytes, `pitch` bytes apart, the first at `start`,
 * none crossing a multiple of `pitch` (a block of a row-major matrix). Two grids with the same
 * pitch overlap exactly when their lines (`⌊byte / pitch⌋`) and their columns (`byte mod
 * pitch`) both overlap: a test in constant time, where the interval lists take a merge.
 */
export interface Grid {
  readonly start: number;
  readonly width: number;
  readonly pitch: number;
  readonly rows: number;
}

/** The grid a block of `rows` runs of `width` bytes, `pitch` apart from `start`, forms (if any). */
export function gridOf(
  start: number,
  width: number,
  pitch: number,
  rows: number,
): Grid | undefined {
  if (rows < 2 || width <= 0 || pitch <= 0 || (start % pitch) + width > pitch) return undefined;
  return { start, width, pitch, rows };
}

function gridsOverlap(a: Grid, b: Grid): boolean {
  const aLine = Math.floor(a.start / a.pitch);
  const bLine = Math.floor(b.start / b.pitch);
  if (aLine + a.rows <= bLine || bLine + b.rows <= aLine) return false;
  const aCol = a.start - aLine * a.pitch;
  const bCol = b.start - bLine * b.pitch;
  return aCol < bCol + b.width && bCol < aCol + a.width;
}

/** A footprint of `root` covering `iv` (and only `field`, if given). */
export function footprint(
  root: object,
  iv: Intervals,
  field?: string,
  slices?: readonly NormalSlice[],
  grid?: Grid,
  band?: Band,
): Footprint {
  const lo = iv.length > 0 ? iv[0] : 0;
  const hi = iv.length > 0 ? iv[iv.length - 1] : 0;
  return band === undefined
    ? { root, field, iv, lo, hi, slices, grid }
    : { root, field, iv, lo, hi, slices, grid, band };
}

/** True when two footprints of the same root may share memory (they alias). */
export function footprintsOverlap(a: Footprint, b: Footprint): boolean {
  if (a.field !== undefined && b.field !== undefined && a.field !== b.field) return false;
  if (a.band !== undefined || b.band !== undefined) return bandsMeet(a, b);
  if (a.slices !== undefined && b.slices !== undefined) return slicesIntersect(a.slices, b.slices);
  if (a.hi <= b.lo || b.hi <= a.lo) return false;
  if (a.grid !== undefined && b.grid !== undefined && a.grid.pitch === b.grid.pitch) {
    return gridsOverlap(a.grid, b.grid);
  }
  return intervalsOverlap(a.iv, b.iv);
}

/** True when two footprints cover exactly the same memory. */
export function footprintsEqual(a: Footprint, b: Footprint): boolean {
  // A strided view's footprint is made once per layout and reused (`stridedFootprint`): the
  // tile a tiled algorithm passes again is that very object, found without comparing its
  // interval list (a row's bounds each).
  if (a === b) return true;
  if (a.field !== b.field) return false;
  if (a.band !== undefined || b.band !== undefined) {
    return (
      a.band !== undefined &&
      b.band !== undefined &&
      a.slices === undefined &&
      b.slices === undefined &&
      a.band.lo === b.band.lo &&
      a.band.hi === b.band.hi
    );
  }
  if (a.slices !== undefined || b.slices !== undefined) {
    if (a.slices === undefined || b.slices === undefined) return false;
    return a.slices.every((s, d) => {
      const t = b.slices![d];
      return t !== undefined && s.start === t.start && s.end === t.end && s.step === t.step;
    });
  }
  return a.lo === b.lo && a.hi === b.hi && intervalsEqual(a.iv, b.iv);
}

/**
 * Whether footprints of one source, at least one a band, may share an element: two bands when
 * their ranges of `j − i` meet; a band and a 2-D view's index set when some of the view's
 * `(i, j)` (steps ignored: a superset) has `j − i` in the band; anything else (the whole
 * source, a view of another rank) always.
 */
function bandsMeet(a: Footprint, b: Footprint): boolean {
  const [band, other] = a.band !== undefined ? [a.band, b] : [b.band as Band, a];
  if (other.band !== undefined) {
    return Math.max(band.lo, other.band.lo) < Math.min(band.hi, other.band.hi);
  }
  const s = other.slices;
  if (s === undefined || s.length !== 2) return true;
  const [rows, cols] = s;
  if (rows.start >= rows.end || cols.start >= cols.end) return false;
  // j − i over the view runs from cols.start − (rows.end − 1) to (cols.end − 1) − rows.start.
  const least = cols.start - (rows.end - 1);
  const most = cols.end - 1 - rows.start;
  return least < band.hi && most >= band.lo;
}

/** Cartesian index sets intersect iff they intersect in every dimension. */
function slicesIntersect(a: readonly NormalSlice[], b: readonly NormalSlice[]): boolean {
  if (a.length !== b.length) return true; // cannot compare: assume they alias (safe)
  for (let d = 0; d < a.length; d++) if (!progressionsMeet(a[d], b[d])) return false;
  return true;
}

/** Whether `start + k·step < end` sequences share a value (exact for steps up to large ranges). */
function progressionsMeet(x: NormalSlice, y: NormalSlice): boolean {
  const lo = Math.max(x.start, y.start);
  const hi = Math.min(x.end, y.end);
  if (lo >= hi) return false;
  if (x.step === 1 && y.step === 1) return true;
  // Walk the sparser progression inside [lo, hi); cap the walk and assume overlap beyond it.
  const [p, q] = x.step >= y.step ? [x, y] : [y, x];
  let v = p.start + Math.ceil((lo - p.start) / p.step) * p.step;
  for (let n = 0; v < hi && n < 100_000; v += p.step, n++) {
    if ((v - q.start) % q.step === 0) return true;
  }
  return v < hi;
}

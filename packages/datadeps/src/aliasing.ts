import { ArgumentError, isChunk, isDTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { isChunkView } from './chunk-view.js';
import { type Footprint, footprint, gridOf } from './footprint.js';
import { type Intervals, normalizeIntervals, WHOLE } from './intervals.js';
import { type AliasModifier, isAliasModifier } from './modifiers.js';
import type { NormalSlice } from './slices.js';
import { isStridedView, type StridedView, type TypedArray } from './strided-view.js';

/** Objects visited per argument before the analysis gives up (deep or huge object graphs). */
const MAX_NODES = 200_000;

/**
 * The memory an argument touches (`modifier`: a part of it, as in `Deps`), as footprints:
 * - typed arrays and `DataView`s: their byte range of their (Shared)`ArrayBuffer`, so views over
 *   one buffer alias exactly when their bytes overlap;
 * - strided views `{ data, shape, strides, offset }`: the bytes of their elements (one interval
 *   per contiguous row or column), restricted by a triangle/diagonal/band modifier;
 * - `ChunkView`s: the index set of their source; a `Chunk` or `DTask`: the whole source;
 * - arrays, plain objects and other objects: themselves (by identity) plus, recursively, what
 *   their elements / own fields hold; with a field-name modifier, that field and its value;
 * - primitives: nothing.
 * A triangle/diagonal/band modifier on a `Chunk` or `DTask` (`Deps(chunk,
 * InOut(upperTriangular))`) touches that part of its 2-D data, as on a matrix here (the upper
 * and the strict lower triangle of one chunk do not alias; the data is not here to measure,
 * so the part is kept as the range of `j − i` it covers); on a `ChunkView`, the view's index
 * set. Throws `ArgumentError` when a modifier does not fit the value, saying
 * what to pass instead.
 */
export function footprintsOf(value: unknown, modifier?: AliasModifier | string): Footprint[] {
  if (modifier === undefined) {
    // Most arguments are one piece of memory: no walk (and no set of visited objects) needed,
    // and a list of one made at its size (an empty one pushed to grows room for 17).
    const leaf = typeof value === 'object' && value !== null ? leafFootprint(value) : undefined;
    if (leaf !== undefined) return [leaf];
    const found: Footprint[] = [];
    walk(value, found, new Set(), { n: 0 });
    return found;
  }
  const out: Footprint[] = [];
  if (typeof modifier === 'string') {
    if (typeof value !== 'object' || value === null || ArrayBuffer.isView(value)) {
      throw new ArgumentError(
        `Deps(x, In/Out/InOut('${modifier}')): a field name needs an object x; got ${describeValue(value)}`,
      );
    }
    out.push(footprint(value, WHOLE, modifier));
    walk((value as Record<string, unknown>)[modifier], out, new Set([value]), { n: 0 });
    return out;
  }
  if (isChunk(value) || isDTask(value)) {
    // Data elsewhere (or not made yet): its part as the band of the matrix it covers.
    out.push(footprint(value, WHOLE, undefined, undefined, undefined, modifier.band));
    return out;
  }
  if (isChunkView(value)) {
    // The modifier is relative to the view: the view's whole index set (conservative).
    out.push(leafFootprint(value) as Footprint);
    return out;
  }
  if (!isStridedView(value) || value.shape.length !== 2) {
    throw new ArgumentError(
      `Deps(x, …(${modifier.kind})): ${modifier.kind} needs a 2-D strided view ` +
        `{ data, shape: [rows, cols], strides, offset } as x (see strided()); got ${describeValue(value)}`,
    );
  }
  out.push(stridedFootprint(value, modifier));
  return out;
}

function walk(x: unknown, out: Footprint[], seen: Set<unknown>, count: { n: number }): void {
  if (typeof x !== 'object' || x === null) {
    if (typeof x === 'function') out.push(footprint(x, WHOLE));
    return;
  }
  if (seen.has(x)) return;
  seen.add(x);
  if (++count.n > MAX_NODES) {
    throw new ArgumentError(
      `A datadeps argument holds more than ${MAX_NODES} objects, too many to analyse for aliasing; ` +
        'pass the typed arrays or views the task touches as separate arguments instead',
    );
  }
  const leaf = leafFootprint(x);
  if (leaf !== undefined) {
    out.push(leaf);
    return;
  }
  out.push(footprint(x, WHOLE));
  if (Array.isArray(x)) {
    for (let i = 0; i < x.length; i++) walk(x[i], out, seen, count);
    return;
  }
  if (x instanceof Map || x instanceof Set) return; // by identity
  for (const key of Object.keys(x)) walk((x as Record<string, unknown>)[key], out, seen, count);
}

/**
 * The footprint of a value that is one piece of memory, analysed without looking inside: a
 * typed array or `DataView`, a buffer, a `ChunkView`, a `Chunk` or `DTask`, a strided view.
 * Undefined for anything else (an object whose fields are walked).
 */
function leafFootprint(x: object): Footprint | undefined {
  if (ArrayBuffer.isView(x))
    return footprint(x.buffer, [x.byteOffset, x.byteOffset + x.byteLength]);
  if (x instanceof ArrayBuffer || x instanceof SharedArrayBuffer)
    return footprint(x, [0, x.byteLength]);
  if (isChunkView(x)) return footprint(x.source, WHOLE, undefined, x.slices.map(openSlice));
  if (isChunk(x) || isDTask(x)) return footprint(x, WHOLE);
  if (isStridedView(x)) return stridedFootprint(x, undefined);
  return undefined;
}

/** A `ChunkView` slice as an index set (':' is everything). */
function openSlice(s: unknown): NormalSlice {
  if (s === ':') return { start: 0, end: Number.POSITIVE_INFINITY, step: 1, drop: false };
  if (typeof s === 'number') return { start: s, end: s + 1, step: 1, drop: true };
  const [start, end, step = 1] = s as number[];
  return { start, end, step, drop: false };
}

/** Footprints of whole strided views already computed, by buffer, then by layout (see below). */
const layouts = new WeakMap<object, Map<string, Footprint>>();
/** Layouts remembered per buffer before that buffer's cache starts over. */
const LAYOUTS_PER_BUFFER = 4096;

/**
 * The footprints of 2-D views of one shape and strides over one buffer (a matrix's tiles), by
 * offset: found by comparing numbers and a number-keyed lookup, where a layout key string took
 * ≈ 400 bytes of garbage a view to build.
 */
interface TileLayout {
  readonly base: number;
  readonly size: number;
  readonly rows: number;
  readonly cols: number;
  readonly rowStride: number;
  readonly colStride: number;
  readonly byOffset: Map<number, Footprint>;
}
/** 2-D layouts per buffer (see `TileLayout`). */
const tileLayouts = new WeakMap<object, TileLayout[]>();
/** 2-D layouts remembered per buffer before that buffer's list starts over. */
const TILE_LAYOUTS_PER_BUFFER = 16;

/**
 * Bytes of a strided view's elements (of the `modifier`'s part, for a 2-D view). A whole view
 * (no modifier) of a layout seen before reuses that footprint: tiled algorithms pass the same
 * few tiles again and again, each time as a new view object, and a tile of a 2-D matrix is one
 * interval per row to compute.
 */
export function stridedFootprint(
  v: StridedView<TypedArray | unknown[]>,
  modifier: AliasModifier | undefined,
): Footprint {
  const typed = ArrayBuffer.isView(v.data);
  const root: object = typed ? (v.data as TypedArray).buffer : v.data;
  const size = typed ? (v.data as TypedArray).BYTES_PER_ELEMENT : 1;
  const base = typed ? (v.data as TypedArray).byteOffset : 0;
  if (modifier !== undefined) return computeStrided(v, modifier, root, size, base);
  const { shape, strides } = v;
  if (shape.length === 2 && strides.length === 2) {
    const tiles = tileLayoutOf(root, base, size, shape, strides);
    let fp = tiles.byOffset.get(v.offset);
    if (fp === undefined) {
      fp = computeStrided(v, undefined, root, size, base);
      if (tiles.byOffset.size >= LAYOUTS_PER_BUFFER) tiles.byOffset.clear();
      tiles.byOffset.set(v.offset, fp);
    }
    return fp;
  }
  const key = `${base}:${size}:${v.offset}:${shape.join(',')}:${strides.join(',')}`;
  let known = layouts.get(root);
  if (known === undefined) layouts.set(root, (known = new Map()));
  let fp = known.get(key);
  if (fp === undefined) {
    fp = computeStrided(v, undefined, root, size, base);
    if (known.size >= LAYOUTS_PER_BUFFER) known.clear();
    known.set(key, fp);
  }
  return fp;
}

/** The `TileLayout` of 2-D views of `root` with this element base, size, shape and strides. */
function tileLayoutOf(
  root: object,
  base: number,
  size: number,
  shape: readonly number[],
  strides: readonly number[],
): TileLayout {
  let list = tileLayouts.get(root);
  if (list === undefined) tileLayouts.set(root, (list = []));
  // Indexed reads and loop, not destructuring and `for…of`: this runs for every tile argument
  // of every task, and an iterator walk costs 0.1-0.3 µs until V8 optimises it.
  const rows = shape[0];
  const cols = shape[1];
  const rowStride = strides[0];
  const colStride = strides[1];
  for (let k = 0; k < list.length; k++) {
    const t = list[k];
    if (
      t.rows === rows &&
      t.cols === cols &&
      t.rowStride === rowStride &&
      t.colStride === colStride &&
      t.base === base &&
      t.size === size
    ) {
      return t;
    }
  }
  if (list.length >= TILE_LAYOUTS_PER_BUFFER) list.length = 0;
  const t: TileLayout = { base, size, rows, cols, rowStride, colStride, byOffset: new Map() };
  list.push(t);
  return t;
}

function computeStrided(
  v: StridedView<TypedArray | unknown[]>,
  modifier: AliasModifier | undefined,
  root: object,
  size: number,
  base: number,
): Footprint {
  const raw: number[] = [];
  const line = (start: number, count: number, stride: number): void => {
    if (count <= 0) return;
    if (count === 1 || stride === 1 || stride === -1) {
      const first = Math.min(start, start + (count - 1) * stride);
      raw.push(base + first * size, base + (first + count) * size);
      return;
    }
    for (let k = 0, e = start; k < count; k++, e += stride)
      raw.push(base + e * size, base + (e + 1) * size);
  };
  const { shape, strides, offset } = v;
  if (shape.some((n) => n === 0)) return footprint(root, []);
  if (modifier !== undefined && isAliasModifier(modifier)) {
    const [rows, cols] = shape;
    for (let i = 0; i < rows; i++) {
      const j0 = Math.max(0, modifier.first(i));
      const j1 = Math.min(cols, modifier.last(i));
      line(offset + i * strides[0] + j0 * strides[1], j1 - j0, strides[1]);
    }
  } else if (shape.length === 0) line(offset, 1, 1);
  else {
    // Lines along the dimension with the smallest stride; an odometer over the others.
    let inner = shape.length - 1;
    for (let d = 0; d < shape.length; d++) {
      if (Math.abs(strides[d]) < Math.abs(strides[inner])) inner = d;
    }
    const outer = shape.map((_, d) => d).filter((d) => d !== inner);
    const index = outer.map(() => 0);
    for (;;) {
      let start = offset;
      for (let k = 0; k < outer.length; k++) start += index[k] * strides[outer[k]];
      line(start, shape[inner], strides[inner]);
      let k = outer.length - 1;
      while (k >= 0 && ++index[k] === shape[outer[k]]) index[k--] = 0;
      if (k < 0) break;
    }
  }
  const iv: Intervals = normalizeIntervals(raw);
  // A block of a row-major matrix (rows of contiguous elements) is also a grid: constant-time
  // overlap tests against other blocks of the same matrix.
  const grid =
    modifier === undefined && shape.length === 2 && strides[1] === 1 && strides[0] > 0
      ? gridOf(base + offset * size, shape[1] * size, strides[0] * size, shape[0])
      : undefined;
  return grid !== undefined && iv.length === 2 * shape[0]
    ? footprint(root, iv, undefined, undefined, grid)
    : footprint(root, iv);
}

/** How a value reads in messages. */
export function kindOf(x: unknown): string {
  if (x === null) return 'null';
  if (typeof x !== 'object') return typeof x;
  return x.constructor?.name ?? 'an object without a prototype';
}

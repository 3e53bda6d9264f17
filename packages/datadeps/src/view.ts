import { ArgumentError, type Chunk, type DTask, isChunk, isDTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { ChunkView, isChunkView } from './chunk-view.js';
import { composeSlices } from './compose-slices.js';
import { sliceValue } from './slice-value.js';
import { checkSlice, checkSlicesFit, type Slice } from './slices.js';
import { isStridedView, type StridedView, type TypedArray } from './strided-view.js';

/**
 * What a task receives for a `ChunkView` of data of type `T` (so `spawn` type-checks it like
 * the data itself): a strided view stays a strided view; a typed array stays that typed array
 * (true for a range of step 1; other slices give a strided view).
 */
export type Sliced<T> =
  T extends StridedView<infer D> ? StridedView<D> : T extends TypedArray ? T : unknown;

/**
 * Dagger's `view`, 0-based (see `Slice` for the syntax: an integer, `[start, end]`,
 * `[start, end, step]` or `':'`).
 *
 * - `view(chunkOrTask, ...slices)` → a `ChunkView` to pass to tasks in a `spawnDatadeps`
 *   region; the slicing happens where the data is, and out-of-bounds indices or a wrong number
 *   of slices fail the task that takes it with `ArgumentError`.
 * - `view(chunkView, ...slices)` → a `ChunkView` of the same source (slices composed; one
 *   slice per dimension the first view keeps).
 * - `view(array, ...slices)` on local data (a typed array, an array or a strided view
 *   `{ data, shape, strides, offset }`) → a view sharing its elements: a `subarray` for a 1-D
 *   range of step 1, otherwise a strided view. Checked at once (`ArgumentError`).
 *
 * Passing a view as `InOut(view(A, 0, ':'))` orders tasks by the elements they share.
 */
export function view<T>(source: Chunk<T> | DTask<T>, ...slices: Slice[]): ChunkView<T> & Sliced<T>;
export function view<T>(source: ChunkView<T>, ...slices: Slice[]): ChunkView<T> & Sliced<T>;
export function view<T extends TypedArray | unknown[]>(
  source: StridedView<T>,
  ...slices: Slice[]
): StridedView<T>;
export function view<T extends TypedArray>(source: T, range: readonly [number, number]): T;
export function view<T extends TypedArray>(source: T, range: Slice): T | StridedView<T>;
export function view<T>(source: T[], range: Slice): StridedView<T[]>;
export function view(source: unknown, ...slices: unknown[]): unknown {
  if (slices.length === 0) {
    throw new ArgumentError(
      "view(x, ...slices): give one slice per dimension, e.g. view(A, 0, ':') for row 0",
    );
  }
  // An indexed loop, not `forEach`: a view is made per task, and until V8 optimises this
  // function a callback per slice costs a call through the builtin each.
  for (let i = 0; i < slices.length; i++) checkSlice(slices[i], i);
  if (isChunk(source) || isDTask(source)) return new ChunkView(source, slices as Slice[]);
  if (isChunkView(source)) {
    return new ChunkView(source.source, composeSlices(source.slices, slices as Slice[]));
  }
  if (isStridedView(source)) checkSlicesFit(slices, source.shape);
  else if ((ArrayBuffer.isView(source) && !(source instanceof DataView)) || Array.isArray(source))
    checkSlicesFit(slices, [(source as ArrayLike<unknown>).length]);
  else {
    throw new ArgumentError(
      `view(x, ...slices): x must be a Chunk, a DTask, a ChunkView, a typed array, an array or a strided view ` +
        `{ data, shape, strides, offset }; got ${describeValue(source)}`,
    );
  }
  return sliceValue(source, slices);
}

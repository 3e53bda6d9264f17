import { ArgumentError } from '@dtask/core';

/** Typed arrays (every kind), the element storage of strided views. */
export type TypedArray =
  | Int8Array
  | Uint8Array
  | Uint8ClampedArray
  | Int16Array
  | Uint16Array
  | Int32Array
  | Uint32Array
  | Float32Array
  | Float64Array
  | BigInt64Array
  | BigUint64Array;

/**
 * An ndarray-style view of elements of `data` (API.md): element `(i, j)` is
 * `data[offset + i * strides[0] + j * strides[1]]`, for `0 ≤ i < shape[0]`, `0 ≤ j < shape[1]`.
 * Plain data, so it crosses threads like any object; over a `SharedArrayBuffer` every thread
 * sees (and writes) the same elements. Datadeps analyses its aliasing element by element
 * (rows or columns of byte ranges), so tiles, rows and columns of one matrix alias exactly
 * when they share elements. 0-, 1- and 2-dimensional views are the common case; any number of
 * dimensions works for aliasing.
 */
export interface StridedView<T extends TypedArray | unknown[] = TypedArray> {
  readonly data: T;
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly offset: number;
}

/** True for an object shaped like a `StridedView` (data, shape, strides, offset). */
export function isStridedView(x: unknown): x is StridedView<TypedArray | unknown[]> {
  if (typeof x !== 'object' || x === null) return false;
  const v = x as StridedView<TypedArray | unknown[]>;
  return (
    (ArrayBuffer.isView(v.data) || Array.isArray(v.data)) &&
    Array.isArray(v.shape) &&
    Array.isArray(v.strides) &&
    typeof v.offset === 'number'
  );
}

/** True for a typed array (not a `DataView`). */
export function isTypedArray(x: unknown): x is TypedArray {
  return ArrayBuffer.isView(x) && !(x instanceof DataView);
}

/**
 * A row-major (C order) view of `data` with `shape`: `strided(data, [rows, cols])` is a matrix
 * whose element `(i, j)` is `data[i * cols + j]`. Pass `strides`/`offset` for other layouts.
 * Throws `ArgumentError` when the view would reach outside `data`.
 */
export function strided<T extends TypedArray | unknown[]>(
  data: T,
  shape: readonly number[],
  strides?: readonly number[],
  offset = 0,
): StridedView<T> {
  if (!ArrayBuffer.isView(data) && !Array.isArray(data)) {
    throw new ArgumentError('strided(data, shape): data must be a typed array or an array');
  }
  if (!shape.every((n) => Number.isInteger(n) && n >= 0)) {
    throw new ArgumentError('strided(data, shape): shape must be non-negative integers');
  }
  let s = strides;
  if (s === undefined) {
    const out = new Array<number>(shape.length);
    let step = 1;
    for (let d = shape.length - 1; d >= 0; d--) {
      out[d] = step;
      step *= shape[d];
    }
    s = out;
  }
  if (s.length !== shape.length || !s.every(Number.isInteger)) {
    throw new ArgumentError('strided(): give one integer stride per dimension');
  }
  const view: StridedView<T> = { data, shape: [...shape], strides: [...s], offset };
  const [lo, hi] = extent(view);
  if (lo < 0 || hi > (data as ArrayLike<unknown>).length) {
    throw new ArgumentError(
      `strided(): shape [${shape.join(', ')}] with strides [${s.join(', ')}] and offset ${offset} ` +
        `reaches elements ${lo}…${hi - 1} of data of length ${(data as ArrayLike<unknown>).length}`,
    );
  }
  return view;
}

/** First and one-past-last element index a view touches (`[0, 0]` when it is empty). */
export function extent(v: StridedView<TypedArray | unknown[]>): [number, number] {
  let lo = v.offset;
  let hi = v.offset;
  for (let d = 0; d < v.shape.length; d++) {
    if (v.shape[d] === 0) return [0, 0];
    const span = (v.shape[d] - 1) * v.strides[d];
    if (span < 0) lo += span;
    else hi += span;
  }
  return [lo, hi + 1];
}

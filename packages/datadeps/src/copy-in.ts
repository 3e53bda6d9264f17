import { type Footprint, footprintsOverlap } from './footprint.js';
import { extent, isStridedView, type StridedView, type TypedArray } from './strided-view.js';

/**
 * True when sending `value` to another thread would copy more than the part it covers: a typed
 * array, `DataView` or strided view over part of an ordinary `ArrayBuffer`. (Structured cloning
 * copies a view's whole buffer; a `SharedArrayBuffer` is not copied at all.)
 */
export function needsCompactCopy(value: unknown): boolean {
  if (ArrayBuffer.isView(value)) {
    return (
      !(value.buffer instanceof SharedArrayBuffer) && value.byteLength < value.buffer.byteLength
    );
  }
  if (isStridedView(value) && ArrayBuffer.isView(value.data)) {
    const data = value.data;
    if (data.buffer instanceof SharedArrayBuffer) return false;
    let elements = 1;
    for (const n of value.shape) elements *= n;
    return elements * data.BYTES_PER_ELEMENT < data.buffer.byteLength;
  }
  return false;
}

/**
 * A copy of only the elements `value` covers, in a buffer of its own (see `needsCompactCopy`): a
 * typed array or `DataView` of the same length, or a strided view of the same shape over a
 * row-major (C order) typed array of the same kind. What datadeps sends a worker thread instead
 * of a tile's whole matrix (copy-in); the worker's writes come back in the same form and
 * `moveInPlace` copies them into the original elements (copy-out). Anything else is returned
 * as it is.
 */
export function compactCopy(value: unknown): unknown {
  if (ArrayBuffer.isView(value)) {
    if (value instanceof DataView) {
      return new DataView(
        value.buffer.slice(value.byteOffset, value.byteOffset + value.byteLength) as ArrayBuffer,
      );
    }
    return (value as TypedArray).slice();
  }
  if (!isStridedView(value) || !ArrayBuffer.isView(value.data)) return value;
  const v = value as StridedView<TypedArray>;
  const shape = v.shape;
  let count = 1;
  for (const n of shape) count *= n;
  const Kind = v.data.constructor as new (n: number) => TypedArray;
  const data = new Kind(count);
  const strides = new Array<number>(shape.length);
  let step = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    strides[d] = step;
    step *= shape[d];
  }
  if (count > 0) copyElements(v, data);
  return { data, shape: [...shape], strides, offset: 0 };
}

/** Writes `v`'s elements into `out` in row-major order. */
function copyElements(v: StridedView<TypedArray>, into: TypedArray): void {
  const src = v.data as unknown as number[];
  const out = into as unknown as number[];
  const { shape, strides } = v;
  if (shape.length === 0) {
    out[0] = src[v.offset];
    return;
  }
  if (shape.length === 2) {
    // The common case (a tile): a row at a time.
    const [rows, cols] = shape;
    const [rs, cs] = strides;
    let k = 0;
    for (let i = 0; i < rows; i++) {
      const base = v.offset + i * rs;
      if (cs === 1) {
        (into as Float64Array).set((v.data as Float64Array).subarray(base, base + cols), k);
        k += cols;
      } else {
        for (let j = 0; j < cols; j++) out[k++] = src[base + j * cs];
      }
    }
    return;
  }
  const index = shape.map(() => 0);
  const last = shape.length - 1;
  for (let k = 0; ; ) {
    let at = v.offset;
    for (let d = 0; d < last; d++) at += index[d] * strides[d];
    for (let j = 0; j < shape[last]; j++) out[k++] = src[at + j * strides[last]];
    let d = last - 1;
    while (d >= 0 && ++index[d] === shape[d]) index[d--] = 0;
    if (d < 0) return;
  }
}

/**
 * The arguments at `candidates` (those `needsCompactCopy` accepts) grouped so that arguments
 * whose memory overlaps travel in one shared copy: on the worker they must alias as they do
 * here (a task that writes `x` and reads an overlapping view of it sees its own writes).
 * `footprints(i)` gives argument `i`'s footprints. Most groups have one member.
 */
export function copyInGroups(
  candidates: readonly number[],
  footprints: (i: number) => readonly Footprint[],
): number[][] {
  const group = candidates.map((_, k) => k);
  const find = (k: number): number => {
    while (group[k] !== k) k = group[k] = group[group[k]];
    return k;
  };
  for (let a = 0; a < candidates.length; a++) {
    for (let b = a + 1; b < candidates.length; b++) {
      if (find(a) !== find(b) && overlap(footprints(candidates[a]), footprints(candidates[b]))) {
        group[find(b)] = find(a);
      }
    }
  }
  const out = new Map<number, number[]>();
  for (let k = 0; k < candidates.length; k++) {
    const root = find(k);
    let members = out.get(root);
    if (members === undefined) out.set(root, (members = []));
    members.push(candidates[k]);
  }
  return [...out.values()];
}

function overlap(a: readonly Footprint[], b: readonly Footprint[]): boolean {
  for (const x of a)
    for (const y of b) if (x.root === y.root && footprintsOverlap(x, y)) return true;
  return false;
}

/**
 * Copies of `values` (views over one ordinary buffer whose memory overlaps) that share one new
 * buffer holding the bytes they span together, so they alias on the worker as they do here.
 * One value alone gets `compactCopy`.
 */
export function compactCopies(values: readonly unknown[]): unknown[] {
  if (values.length === 1) return [compactCopy(values[0])];
  let lo = Number.POSITIVE_INFINITY;
  let hi = 0;
  let buffer: ArrayBufferLike | undefined;
  for (const v of values) {
    const [start, end, of] = byteSpan(v);
    buffer = of;
    if (start < lo) lo = start;
    if (end > hi) hi = end;
  }
  if (buffer === undefined || hi <= lo) return values.map(compactCopy);
  lo -= lo % 8; // keeps every element size's alignment
  const copy = (buffer as ArrayBuffer).slice(lo, hi);
  return values.map((v) => rebase(v, copy, lo));
}

/** The bytes of its buffer a view covers: `[start, end, buffer]`. */
function byteSpan(v: unknown): [number, number, ArrayBufferLike] {
  if (ArrayBuffer.isView(v)) return [v.byteOffset, v.byteOffset + v.byteLength, v.buffer];
  const s = v as StridedView<TypedArray>;
  const size = s.data.BYTES_PER_ELEMENT;
  const [first, last] = extent(s);
  return [s.data.byteOffset + first * size, s.data.byteOffset + last * size, s.data.buffer];
}

/** `v` over `copy`, which holds `v`'s buffer's bytes from `lo` on. */
function rebase(v: unknown, copy: ArrayBuffer, lo: number): unknown {
  if (v instanceof DataView) return new DataView(copy, v.byteOffset - lo, v.byteLength);
  if (ArrayBuffer.isView(v)) {
    const t = v as TypedArray;
    const Kind = t.constructor as new (
      b: ArrayBuffer,
      offset: number,
      length: number,
    ) => TypedArray;
    return new Kind(copy, t.byteOffset - lo, t.length);
  }
  const s = v as StridedView<TypedArray>;
  const size = s.data.BYTES_PER_ELEMENT;
  const Kind = s.data.constructor as new (
    b: ArrayBuffer,
    offset: number,
    length: number,
  ) => TypedArray;
  const data = new Kind(copy, 0, Math.floor(copy.byteLength / size));
  return { ...s, data, offset: s.offset + (s.data.byteOffset - lo) / size };
}

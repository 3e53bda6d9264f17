/**
 * Applies `view` slices to a value, wherever it is: a typed array or array (1-D), or a strided
 * view `{ data, shape, strides, offset }`. The result shares the value's elements:
 * a 1-D range of step 1 over a typed array is a `subarray`, anything else a strided view over
 * the same `data` (0-D for all-integer slices). Throws an error with code `DTASK_ARGUMENT`
 * (rebuilt as `ArgumentError` across threads) for a wrong number of slices or an index out of
 * bounds.
 *
 * Self-contained on purpose (it uses only its parameters and globals), so it travels to worker
 * threads as source text: a `ChunkView` is sliced where its chunk's data is, by a helper task.
 * Slices are assumed well-formed (`checkSlice` ran at `view()`).
 */
export function sliceValue(value: unknown, slices: readonly unknown[]): unknown {
  // Errors are thrown where they arise, not by a helper closure: the build names each closure
  // it makes (`keepNames`), which costs microseconds, and a view is made per task.
  const v = value as {
    data?: ArrayLike<unknown>;
    shape?: number[];
    strides?: number[];
    offset?: number;
  };
  let data: ArrayLike<unknown>;
  let shape: number[];
  let strides: number[];
  let offset: number;
  if (ArrayBuffer.isView(value) && !(value instanceof DataView)) {
    data = value as unknown as ArrayLike<unknown>;
    shape = [data.length];
    strides = [1];
    offset = 0;
  } else if (Array.isArray(value)) {
    data = value;
    shape = [value.length];
    strides = [1];
    offset = 0;
  } else if (
    typeof value === 'object' &&
    value !== null &&
    v.data !== undefined &&
    Array.isArray(v.shape) &&
    Array.isArray(v.strides)
  ) {
    data = v.data;
    shape = v.shape;
    strides = v.strides;
    offset = v.offset ?? 0;
  } else {
    const kind =
      value === null ? 'null' : typeof value === 'object' ? value.constructor?.name : typeof value;
    throw Object.assign(
      new Error(
        `view(): cannot slice ${kind}; a view needs a typed array, an array or a strided view ` +
          '{ data, shape, strides, offset }',
      ),
      { name: 'ArgumentError', code: 'DTASK_ARGUMENT' },
    );
  }
  if (slices.length !== shape.length) {
    throw Object.assign(
      new Error(
        `view(): ${slices.length} slice(s) given for data with ${shape.length} dimension(s) ` +
          `(shape [${shape.join(', ')}]); give one slice per dimension, ':' for all of it`,
      ),
      { name: 'ArgumentError', code: 'DTASK_ARGUMENT' },
    );
  }
  // The result's shape and strides at their exact size (literals for one or two dimensions
  // kept, the common views): pushed onto `[]`, each would reserve room for 16 elements, a
  // quarter of a kilobyte for a tile's view, made per task.
  let kept = 0;
  for (let d = 0; d < slices.length; d++) if (typeof slices[d] !== 'number') kept++;
  const outShape: number[] = kept === 2 ? [0, 0] : kept === 1 ? [0] : [];
  const outStrides: number[] = kept === 2 ? [0, 0] : kept === 1 ? [0] : [];
  let j = 0;
  let outOffset = offset;
  let unitRange = true;
  for (let d = 0; d < slices.length; d++) {
    const s = slices[d];
    const n = shape[d];
    if (s === ':') {
      outShape[j] = n;
      outStrides[j++] = strides[d];
      continue;
    }
    if (typeof s === 'number') {
      if (s >= n) {
        throw Object.assign(
          new Error(`view(): index ${s} is out of bounds for dimension ${d} of length ${n}`),
          { name: 'ArgumentError', code: 'DTASK_ARGUMENT' },
        );
      }
      outOffset += s * strides[d];
      unitRange = false;
      continue;
    }
    // By index, not destructured (an iterator walk per slice until V8 optimises this).
    const r = s as number[];
    const start = r[0];
    const end = r[1];
    const step = r.length === 3 && r[2] !== undefined ? r[2] : 1;
    if (end > n) {
      throw Object.assign(
        new Error(
          `view(): range [${start}, ${end}) is out of bounds for dimension ${d} of length ${n}`,
        ),
        { name: 'ArgumentError', code: 'DTASK_ARGUMENT' },
      );
    }
    outShape[j] = end <= start ? 0 : Math.ceil((end - start) / step);
    outStrides[j++] = strides[d] * step;
    outOffset += start * strides[d];
    if (step !== 1) unitRange = false;
  }
  const typed = ArrayBuffer.isView(data);
  if (typed && data === value && unitRange && outShape.length === 1) {
    return (data as unknown as Uint8Array).subarray(outOffset, outOffset + outShape[0]);
  }
  return { data, shape: outShape, strides: outStrides, offset: outOffset };
}

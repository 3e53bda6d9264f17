import { ArgumentError } from '@dtask/core';

/** Element types a `DArray` holds. */
export type DType = 'float64' | 'float32' | 'int32';

/** The typed array of each `DType`. */
export type DTypeArray = Float64Array | Float32Array | Int32Array;

const DTYPES: readonly string[] = ['float64', 'float32', 'int32'];

/** Throws `ArgumentError` unless `dtype` is one of the supported element types. */
export function checkDtype(dtype: string, what: string): DType {
  if (!DTYPES.includes(dtype)) {
    throw new ArgumentError(
      `${what}: dtype must be 'float64', 'float32' or 'int32'; got ${String(dtype)}`,
    );
  }
  return dtype as DType;
}

/** The dtype of a typed array (Float32Array, Int32Array), else `'float64'`. */
export function dtypeOf(array: unknown): DType {
  return array instanceof Float32Array
    ? 'float32'
    : array instanceof Int32Array
      ? 'int32'
      : 'float64';
}

/** A zeroed typed array of `dtype` and length `n`. */
export function arrayOf(dtype: DType, n: number): DTypeArray {
  return dtype === 'float32'
    ? new Float32Array(n)
    : dtype === 'int32'
      ? new Int32Array(n)
      : new Float64Array(n);
}

import { ArgumentError } from '@dtask/core';

/**
 * Element types a `DArray` holds: Julia's `Float64`, `Float32`, `Int32`, `Int16`, `Int8`,
 * `UInt32`, `UInt16`, `UInt8`, each stored in its own typed array.
 */
export type DType =
  | 'float64'
  | 'float32'
  | 'int32'
  | 'int16'
  | 'int8'
  | 'uint32'
  | 'uint16'
  | 'uint8';

/** The typed array of each `DType`. */
export type DTypeArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Int16Array
  | Int8Array
  | Uint32Array
  | Uint16Array
  | Uint8Array;

/** Every dtype, narrowest integers first (Julia's promotion order: see `widerDtype`). */
export const DTYPES: readonly DType[] = [
  'int8',
  'uint8',
  'int16',
  'uint16',
  'int32',
  'uint32',
  'float32',
  'float64',
];

/** The integer dtypes. */
export const INTEGER_DTYPES: readonly DType[] = DTYPES.filter((d) => d.includes('int'));

/** The float dtypes. */
export const FLOAT_DTYPES: readonly DType[] = ['float64', 'float32'];

/** Throws `ArgumentError` unless `dtype` is one of the supported element types. */
export function checkDtype(dtype: string, what: string): DType {
  if (!(DTYPES as readonly string[]).includes(dtype)) {
    throw new ArgumentError(
      `${what}: dtype must be one of ${DTYPES.map((d) => `'${d}'`).join(', ')}; got ${String(dtype)}`,
    );
  }
  return dtype as DType;
}

/** Whether `dtype` holds integers (wrapping on overflow, as Julia's fixed-size integers). */
export function isInteger(dtype: DType): boolean {
  return dtype !== 'float64' && dtype !== 'float32';
}

/** The dtype of a typed array (Float32Array, Int8Array, …), else `'float64'`. */
export function dtypeOf(array: unknown): DType {
  if (array instanceof Uint8ClampedArray) return 'uint8';
  for (const d of DTYPES) if (array instanceof typedArrayClass(d)) return d;
  return 'float64';
}

/** The typed array class of `dtype` (`'uint8'` → `Uint8Array`). */
export function typedArrayClass(dtype: DType): Float64ArrayConstructor {
  const name = `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`;
  return (globalThis as unknown as Record<string, Float64ArrayConstructor>)[name];
}

/** A zeroed typed array of `dtype` and length `n`. */
export function arrayOf(dtype: DType, n: number): DTypeArray {
  return new (typedArrayClass(dtype))(n);
}

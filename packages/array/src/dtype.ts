import { ArgumentError } from '@dtask/core';

/**
 * Element types a `DArray` holds: Julia's `Float64`, `Float32`, `Int32`, `Int16`, `Int8`,
 * `UInt32`, `UInt16`, `UInt8`, each stored in its own typed array, and `ComplexF64`,
 * `ComplexF32` (`complex128`, `complex64`): interleaved (re, im) pairs in a Float64Array or
 * Float32Array, so a block of `n` elements holds `2n` numbers.
 */
export type DType =
  | 'float64'
  | 'float32'
  | 'int32'
  | 'int16'
  | 'int8'
  | 'uint32'
  | 'uint16'
  | 'uint8'
  | 'complex128'
  | 'complex64';

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
  'complex64',
  'complex128',
];

/** The integer dtypes. */
export const INTEGER_DTYPES: readonly DType[] = DTYPES.filter((d) => d.includes('int'));

/** A complex number (Julia's `Complex{Float64}`): its real and imaginary parts. */
export interface Complex {
  /** The real part. */
  re: number;
  /** The imaginary part. */
  im: number;
}

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
  return dtype.includes('int');
}

/** Whether `dtype` is complex (interleaved re, im pairs). */
export function isComplex(dtype: string): boolean {
  return dtype === 'complex128' || dtype === 'complex64';
}

/** Numbers per element: 2 for the complex dtypes, else 1. */
export function widthOf(dtype: string): number {
  return isComplex(dtype) ? 2 : 1;
}

/** The dtype of a typed array (Float32Array, Int8Array, …), else `'float64'`. */
export function dtypeOf(array: unknown): DType {
  if (array instanceof Uint8ClampedArray) return 'uint8';
  for (const d of DTYPES) if (!isComplex(d) && array instanceof typedArrayClass(d)) return d;
  return 'float64';
}

/** The typed array class of `dtype` (`'uint8'` → `Uint8Array`). */
export function typedArrayClass(dtype: DType): Float64ArrayConstructor {
  if (dtype === 'complex128') return Float64Array;
  if (dtype === 'complex64') return Float32Array as unknown as Float64ArrayConstructor;
  const name = `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`;
  return (globalThis as unknown as Record<string, Float64ArrayConstructor>)[name];
}

/** A zeroed typed array of `dtype` for `n` elements (`2n` numbers for a complex dtype). */
export function arrayOf(dtype: DType, n: number): DTypeArray {
  return new (typedArrayClass(dtype))(n * widthOf(dtype));
}

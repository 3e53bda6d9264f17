// Julia's complex functions over complex DArrays: the parts (real, imag, conj, adjoint), joining
// two real arrays (complex), one element (complexAt) and the sum (complexSum).
import { ArgumentError, type DTask } from '@dtask/core';
import {
  complexBlockSum,
  complexElementAt,
  complexJoinBlock,
  complexPartBlock,
} from './complex-kernels.js';
import { DArray } from './darray.js';
import { type Complex, type DType, isComplex } from './dtype.js';
import { DtypeError } from './dtype-error.js';
import { elementOf } from './indexing.js';
import { internals } from './internals.js';
import type { Block } from './kernels.js';
import { describe, sameList } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';

function checkComplex(a: unknown, what: string): DArray {
  if (!(a instanceof DArray))
    throw new ArgumentError(`${what}: expected a DArray; got ${String(a)}`);
  if (!isComplex(a.dtype)) {
    throw new DtypeError(
      what.split('(')[0],
      a.dtype,
      `${what}: takes a complex128 or complex64 array; got ${describe(a)}; make one with complex(re, im)`,
    );
  }
  return a;
}

/** Each chunk of `a` through `kernel(chunk, ...args)` where it lives: a new array of `dtype`. */
function perBlock(a: DArray, dtype: DType, kernel: Function, ...args: unknown[]): DArray {
  const spawn = spawnerOf(a.context) as unknown as (...x: unknown[]) => DTask<Block>;
  const chunks = a.chunks.map((c) => spawn(ownerOf(c, 0), kernel, c, ...args));
  return new DArray(a.shape, a.blocks, dtype, chunks, a.context);
}

/** Julia's `real.(A)`: the real parts of a complex array, a float64 (complex64: float32) array. */
export function real(a: DArray): DArray {
  checkComplex(a, 'real(da)');
  const dtype = a.dtype === 'complex64' ? 'float32' : 'float64';
  return perBlock(a, dtype, complexPartBlock, 're', dtype);
}

/** Julia's `imag.(A)`: the imaginary parts of a complex array (as `real`). */
export function imag(a: DArray): DArray {
  checkComplex(a, 'imag(da)');
  const dtype = a.dtype === 'complex64' ? 'float32' : 'float64';
  return perBlock(a, dtype, complexPartBlock, 'im', dtype);
}

/** Julia's `conj.(A)`: a complex array with its imaginary parts negated. */
export function conj(a: DArray): DArray {
  checkComplex(a, 'conj(da)');
  return perBlock(a, a.dtype, complexPartBlock, 'conj', a.dtype);
}

/**
 * Julia's `adjoint(A)` (`A'`) of a 2-D array: the conjugate transpose of a complex one, the
 * transpose of a real one.
 */
export function adjoint(a: DArray): DArray {
  if (!(a instanceof DArray))
    throw new ArgumentError(`adjoint(da): expected a DArray; got ${String(a)}`);
  return isComplex(a.dtype) ? conj(a.transpose()) : a.transpose();
}

/**
 * Julia's `complex.(re, im)`: a complex array from a real one and, optionally, the imaginary
 * parts (a real array of the same shape, re-blocked to `re`'s blocks where they differ; else
 * zeros). complex64 when the parts are float32, complex128 otherwise.
 */
export function complex(re: DArray, im?: DArray): DArray {
  const what = 'complex(re, im?)';
  for (const x of im === undefined ? [re] : [re, im]) {
    if (!(x instanceof DArray))
      throw new ArgumentError(`${what}: expected DArrays; got ${String(x)}`);
    if (isComplex(x.dtype)) {
      throw new DtypeError(
        'complex',
        x.dtype,
        `${what}: the parts must be real arrays; got ${describe(x)} (it is complex already)`,
      );
    }
  }
  if (im !== undefined && !sameList(re.shape, im.shape)) {
    throw new ArgumentError(
      `${what}: re and im must have one shape; got ${describe(re)} and ${describe(im)}`,
    );
  }
  const single = re.dtype === 'float32' && (im === undefined || im.dtype === 'float32');
  const dtype: DType = single ? 'complex64' : 'complex128';
  const parts = im === undefined ? undefined : im.reblock(re.blocks);
  const spawn = spawnerOf(re.context) as unknown as (...x: unknown[]) => DTask<Block>;
  const chunks = re.chunks.map((c, k) =>
    spawn(ownerOf(c, 0), complexJoinBlock, c, parts === undefined ? null : parts.chunks[k], dtype),
  );
  return new DArray(re.shape, re.blocks, dtype, chunks, re.context);
}

/** The element of a complex array at `(i, j, …)` or one linear index (Dagger's `A[i, j]`). */
export async function complexAt(a: DArray, ...index: number[]): Promise<Complex> {
  checkComplex(a, 'complexAt(da, ...index)');
  const [re, im] = (await elementOf(
    a,
    internals().viewOf(a),
    index,
    complexElementAt,
  )) as unknown as number[];
  return { re, im };
}

/** Julia's `sum(A)` of a complex array: one task per block where it lives, added here. */
export async function complexSum(a: DArray): Promise<Complex> {
  checkComplex(a, 'complexSum(da)');
  const spawn = spawnerOf(a.context) as unknown as (...x: unknown[]) => DTask<number[]>;
  const parts = await Promise.all(a.chunks.map((c) => spawn(ownerOf(c, 0), complexBlockSum, c)));
  let re = 0;
  let im = 0;
  for (const [r, i] of parts) {
    re += r;
    im += i;
  }
  return { re, im };
}

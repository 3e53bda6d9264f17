// Dagger's `fft`, `ifft`, `fft!` and `ifft!` of a DArray (its AbstractFFTs extension): the
// discrete Fourier transform along some dimensions, distributed by pencils or slabs.
import { ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { Blocks } from './blocks.js';
import { copyto } from './copyto.js';
import { DArray } from './darray.js';
import { type DType, isComplex } from './dtype.js';
import { DtypeError } from './dtype-error.js';
import { fftBlock } from './fft-kernel.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';

/** Options of `fft`, `ifft`, `fftInPlace` and `ifftInPlace`. */
export interface FFTOptions {
  /** The dimensions to transform, 0-based (Julia's `dims`, 1-based there); default: all. */
  dims?: readonly number[];
  /**
   * Dagger's `decomp`: `'pencil'` (the default: one dimension at a time, each in blocks that
   * hold it whole) or `'slab'` (all the dimensions but the last together, in blocks that hold
   * them whole, then the last).
   */
  decomp?: 'pencil' | 'slab';
}

/**
 * Julia's (and Dagger's) `fft(A)`: the discrete Fourier transform `X[k] = Σⱼ A[j]·e^(−2πi·jk/n)`
 * along each dimension in `dims`, as a new complex `DArray` with `a`'s shape and blocks:
 * complex64 for a complex64 or float32 `a`, complex128 otherwise (a real `a` is taken as
 * complex). Computed in Float64 by mixed-radix FFTs (Bluestein's algorithm for lengths with a
 * prime factor above 13, so any length costs O(n log n)).
 *
 * Distributed as Dagger's: for each dimension (`'pencil'`) or group of dimensions (`'slab'`),
 * the array is re-blocked so that the blocks hold it whole and keep `a`'s block sizes in the
 * other dimensions, and one task per block transforms its lines where the block lives; then
 * the result is re-blocked to `a`'s blocks. A vector is therefore **gathered to one task** (one
 * processor), as Dagger's 1-D `fft` gathers. `ArgumentError` for a bad `dims` or `decomp`.
 */
export function fft(a: DArray, options: FFTOptions = {}): DArray {
  return transformed(a, options, false, 'fft(a, options?)');
}

/**
 * Julia's (and Dagger's) `ifft(A)`: the inverse transform, `A[j] = (1/n)·Σₖ X[k]·e^(2πi·jk/n)`
 * along each dimension in `dims` (divided by each length), distributed as `fft`.
 */
export function ifft(a: DArray, options: FFTOptions = {}): DArray {
  return transformed(a, options, true, 'ifft(a, options?)');
}

/**
 * Julia's (and Dagger's) `fft!(A)`: `a` (complex128 or complex64) replaced by its transform, as
 * `copyto` writes it; returns `a`. A real `a` is a `DtypeError` (its transform is complex).
 */
export function fftInPlace(a: DArray, options: FFTOptions = {}): DArray {
  return inPlace(a, options, false, 'fftInPlace(a, options?)');
}

/** Julia's (and Dagger's) `ifft!(A)`: `a` replaced by its inverse transform; returns `a`. */
export function ifftInPlace(a: DArray, options: FFTOptions = {}): DArray {
  return inPlace(a, options, true, 'ifftInPlace(a, options?)');
}

function inPlace(a: DArray, options: FFTOptions, inverse: boolean, what: string): DArray {
  if (a instanceof DArray && !isComplex(a.dtype)) {
    throw new DtypeError(
      what.split('(')[0],
      a.dtype,
      `${what}: the transform of a ${a.dtype} array is complex and cannot be written into it; use ${inverse ? 'ifft' : 'fft'}(a), or make a complex first with complex(a)`,
    );
  }
  // Written from the last phase's blocks as they are: `copyto` reads any blocking, and
  // re-blocking first would copy every element once more.
  return copyto(a, transformed(a, options, inverse, what, false));
}

/**
 * The transform of `a` (checked), in `a`'s blocks, or with `reblock` false in the blocks of
 * its last phase.
 */
function transformed(
  a: DArray,
  options: FFTOptions,
  inverse: boolean,
  what: string,
  reblock = true,
): DArray {
  if (!(a instanceof DArray)) {
    throw new ArgumentError(`${what}: expected a DArray; got ${describeValue(a)}`);
  }
  if (options === null || typeof options !== 'object') {
    throw new ArgumentError(`${what}: options must be an object; got ${describeValue(options)}`);
  }
  const rank = a.shape.length;
  const dims = [...(options.dims ?? a.shape.map((_, d) => d))];
  if (
    !dims.every((d) => Number.isInteger(d) && d >= 0 && d < rank) ||
    new Set(dims).size !== dims.length
  ) {
    throw new ArgumentError(
      `${what}: dims must be distinct dimensions of ${describe(a)}, 0-based (0 … ${rank - 1}); got ${describeValue(options.dims)}`,
    );
  }
  const decomp = options.decomp ?? 'pencil';
  if (decomp !== 'pencil' && decomp !== 'slab') {
    throw new ArgumentError(
      `${what}: unknown decomposition ${describeValue(decomp)}; supported: 'pencil', 'slab'`,
    );
  }
  const single = a.dtype === 'complex64' || a.dtype === 'float32';
  const dtype: DType = single ? 'complex64' : 'complex128';
  if (a.shape.some((s) => s === 0) || dims.length === 0) {
    // nothing to transform: the values as complex (an empty array stays empty)
    return a.shape.some((s) => s === 0)
      ? DArray.zeros(a.shape, a.blocks, { context: a.context, dtype })
      : step(a, [], inverse, dtype).reblock(a.blocks);
  }
  const sorted = [...dims].sort((x, y) => x - y);
  const groups =
    decomp === 'slab' && sorted.length > 1
      ? [sorted.slice(0, -1), sorted.slice(-1)]
      : sorted.map((d) => [d]);
  let current = a;
  for (const group of groups) current = step(current, group, inverse, dtype);
  return reblock ? current.reblock(a.blocks) : current;
}

/** One phase: `a` re-blocked to hold `group` whole, each block transformed along it. */
function step(a: DArray, group: number[], inverse: boolean, dtype: DType): DArray {
  const sizes = a.blocks.sizes.map((s, d) => (group.includes(d) ? a.shape[d] : s));
  const whole = a.reblock(new Blocks(...sizes));
  const spawn = spawnerOf(a.context) as unknown as (...x: unknown[]) => DTask<Block>;
  const complex = isComplex(a.dtype);
  const chunks = whole.chunks.map((c) =>
    spawn(ownerOf(c, 0), fftBlock, c, group, inverse, dtype, complex),
  );
  return new DArray(a.shape, whole.blocks, dtype, chunks, a.context);
}

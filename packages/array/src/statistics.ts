import { ArgumentError } from '@dtask/core';
import { lengthOf } from './blocks.js';
import { DArray } from './darray.js';
import { describe } from './parts.js';
import { reduceArray } from './reduce-init.js';
import type { ReduceOptions } from './reductions.js';

/** Options of `variance` and `std`: the dimensions (as the reductions'), and Bessel's correction. */
export interface VarianceOptions extends ReduceOptions {
  /** Divide by `n − 1` (default, Julia's `corrected=true`) or by `n`. */
  corrected?: boolean;
}

function checkArray(a: unknown, what: string): asserts a is DArray {
  if (!(a instanceof DArray))
    throw new ArgumentError(`${what}: a must be a DArray; got ${String(a)}`);
}

/** How many elements each result element of a reduction over `dims` (all: undefined) combines. */
function countOver(a: DArray, dims: number | number[] | undefined): number {
  if (dims === undefined) return lengthOf(a.shape);
  const list = typeof dims === 'number' ? [dims] : dims;
  return list.reduce((n, d) => n * (a.shape[d] ?? 1), 1);
}

/**
 * Dagger's `prod` (Julia's `prod(A; dims, init)`): the product of the elements, a
 * `Promise<number>`, or along `dims` a Float64 `DArray` with those dimensions of size 1; `init`
 * multiplies the result, and is the product over no elements. Blocks are multiplied where they
 * live (in WebAssembly SIMD where the runtime has it, as `sum`: float32 in Float64, the same
 * value as the loop within rounding), then the partial products combined in block order.
 */
export function prod(a: DArray, options?: { init?: number }): Promise<number>;
export function prod(a: DArray, options: { dims: number | number[]; init?: number }): DArray;
export function prod(a: DArray, options?: ReduceOptions): Promise<number> | DArray {
  checkArray(a, 'prod(a, options)');
  const reduced = reduceArray(a, 'prod', options, 'prod');
  if (reduced instanceof Promise) return reduced;
  const { parts, each } = reduced;
  const result = new DArray(parts.shape, parts.blocks, parts.dtype, parts.chunks, a.context);
  return each === undefined ? result : result.map(each);
}

/**
 * Dagger's `extrema` (Julia's `extrema(A; dims)`): `[min, max]` of the elements, or along
 * `dims` two Float64 `DArray`s (the minima, the maxima) with those dimensions of size 1.
 */
export function extrema(a: DArray): Promise<[number, number]>;
export function extrema(a: DArray, options: { dims: number | number[] }): [DArray, DArray];
export function extrema(
  a: DArray,
  options?: ReduceOptions,
): Promise<[number, number]> | [DArray, DArray] {
  checkArray(a, 'extrema(a, options)');
  if (options?.dims === undefined) return Promise.all([a.min(), a.max()]);
  const along = options as { dims: number | number[] };
  return [a.min(along), a.max(along)];
}

/**
 * Dagger's `var` (Julia's `Statistics.var(A; dims, corrected)`; `var` is a JavaScript keyword):
 * the variance of the elements, `Σ(x − mean)² / (n − 1)` (`/ n` with `corrected: false`), a
 * `Promise<number>`, or along `dims` a Float64 `DArray` with those dimensions of size 1. Two
 * passes by blocks where they live: the mean, then the squared deviations' sums.
 */
export function variance(a: DArray, options?: { corrected?: boolean }): Promise<number>;
export function variance(a: DArray, options: VarianceOptions & { dims: number | number[] }): DArray;
export function variance(a: DArray, options: VarianceOptions = {}): Promise<number> | DArray {
  checkArray(a, 'variance(a, options)');
  const n = countOver(a, options.dims);
  const divisor = options.corrected === false ? n : n - 1;
  if (n === 0) throw new ArgumentError(`variance(a, options): the array ${describe(a)} is empty`);
  const square = (x: number) => x * x;
  if (options.dims === undefined) {
    return (async () => {
      const mean = await a.mean();
      return (await a.sub(mean).map(square).sum()) / divisor;
    })();
  }
  const dims = { dims: options.dims };
  return a.sub(a.mean(dims)).map(square).sum(dims).div(divisor);
}

/**
 * Dagger's `std` (Julia's `Statistics.std(A; dims, corrected)`): the square root of `variance`
 * with the same options.
 */
export function std(a: DArray, options?: { corrected?: boolean }): Promise<number>;
export function std(a: DArray, options: VarianceOptions & { dims: number | number[] }): DArray;
export function std(a: DArray, options: VarianceOptions = {}): Promise<number> | DArray {
  checkArray(a, 'std(a, options)');
  if (options.dims === undefined) {
    return (variance(a, options as { corrected?: boolean }) as Promise<number>).then(Math.sqrt);
  }
  const v = variance(a, { ...options, dims: options.dims }) as unknown as DArray;
  return v.map((x) => Math.sqrt(x));
}

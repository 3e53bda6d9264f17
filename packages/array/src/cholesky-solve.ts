import { ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { Blocks } from './blocks.js';
import { choleskySolveBlockComplex } from './cholesky-complex-tiles.js';
import { choleskySolveBlock } from './cholesky-solve-kernel.js';
import { copyto } from './copyto.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import { requireReal } from './dtype-error.js';
import type { Block } from './kernels.js';
import { LU } from './lu.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';

/**
 * Julia's `cholesky(A) \ b` (Dagger's `ldiv!` with a Cholesky factor): `x` with `A·x = b` from
 * `l`, the factor `cholesky(a)` resolves to (`A = L·Lᵀ`; a complex `l`: `A = L·Lᴴ`, `b` real or
 * complex, a plain `b` of `2n` numbers taken as interleaved pairs, `x` complex128). `b` is a `DArray` with `n` rows (a
 * vector or a matrix: one task per column block of `b`, the result shaped and blocked as `b`)
 * or a plain array of `n` numbers (a `Float64Array` back). `ArgumentError` for an `l` that is
 * not a square 2-D `DArray` or a `b` that does not fit.
 */
export function choleskySolve(l: DArray, b: DArray): Promise<DArray>;
export function choleskySolve(l: DArray, b: ArrayLike<number>): Promise<Float64Array>;
export async function choleskySolve(
  l: DArray,
  b: DArray | ArrayLike<number>,
): Promise<DArray | Float64Array> {
  if (!(l instanceof DArray) || l.shape.length !== 2 || l.shape[0] !== l.shape[1]) {
    throw new ArgumentError(
      `choleskySolve(l, b): l must be the square factor cholesky(a) resolves to; got ${l instanceof DArray ? describe(l) : describeValue(l)}`,
    );
  }
  const n = l.shape[0];
  if (!(b instanceof DArray)) {
    const pairs = isComplex(l.dtype) && b !== null && typeof b === 'object' && b.length === 2 * n;
    if (b === null || typeof b !== 'object' || (b.length !== n && !pairs)) {
      throw new ArgumentError(
        `choleskySolve(l, b): b must be a DArray or an array of ${n} numbers (the matrix's side${isComplex(l.dtype) ? `; or ${2 * n}: interleaved re, im pairs` : ''}); got ${describeValue(b)}`,
      );
    }
    const dtype = pairs ? ('complex128' as const) : ('float64' as const);
    const x = await choleskySolve(
      l,
      DArray.from(Float64Array.from(b), new Blocks(n), { context: l.context, dtype }),
    );
    return (await x.collect()).data as Float64Array;
  }
  if (b.shape.length < 1 || b.shape.length > 2 || b.shape[0] !== n) {
    throw new ArgumentError(
      `choleskySolve(l, b): b must have ${n} rows (the matrix's side) and 1 or 2 dimensions; got ${describe(b)}`,
    );
  }
  const spawn = spawnerOf(b.context);
  const whole = l.reblock(new Blocks(n, n)).chunks[0];
  const vector = b.shape.length === 1;
  const cols = b.reblock(vector ? new Blocks(n) : new Blocks(n, b.blocks.sizes[1]));
  const complex = isComplex(l.dtype);
  if (!complex)
    requireReal(
      'solve',
      b,
      'choleskySolve(l, b)',
      'a complex b needs the factor of a complex matrix: cholesky(complex(a))',
    );
  const chunks = cols.chunks.map(
    (c) =>
      (complex
        ? spawn(choleskySolveBlockComplex, whole, c, isComplex(b.dtype))
        : spawn(choleskySolveBlock, whole, c)) as DTask<Block>,
  );
  const dtype = complex ? 'complex128' : 'float64';
  return new DArray(b.shape, cols.blocks, dtype, chunks, b.context).reblock(b.blocks);
}

/**
 * Julia's (and Dagger's) `ldiv!(F, B)`: `b ← A⁻¹·b` in place, `f` an `LU` (what `lu` gives) or a
 * Cholesky factor `L` (the `DArray` `cholesky` resolves to). `b` is a `DArray` or view (vector
 * or matrix with `A`'s rows: written as `copyto` writes) or a caller's `Float64Array` or number
 * array (written in place). Resolves to `b`. Errors as `F.solve` and `choleskySolve`.
 */
export async function ldivInto<B extends DArray | Float64Array | number[]>(
  f: LU | DArray,
  b: B,
): Promise<B> {
  if (!(f instanceof LU) && !(f instanceof DArray)) {
    throw new ArgumentError(
      `ldivInto(f, b): f must be an LU (lu(a)) or a Cholesky factor (cholesky(a)); got ${describeValue(f)}`,
    );
  }
  if (b instanceof DArray) {
    const x = f instanceof LU ? await f.solve(b) : await choleskySolve(f, b);
    copyto(b, x);
    return b;
  }
  if (!(b instanceof Float64Array) && !Array.isArray(b)) {
    throw new ArgumentError(
      `ldivInto(f, b): b must be a DArray, a Float64Array or a number array; got ${describeValue(b)}`,
    );
  }
  const x = f instanceof LU ? await f.solve(b) : await choleskySolve(f, b);
  if (x.length !== b.length) {
    throw new ArgumentError(
      `ldivInto(f, b): the solution of a complex factorization is complex (${x.length} numbers: re, im pairs) and does not fit the real b of ${b.length}; pass b as ${x.length} interleaved numbers, or solve with f.solve(b)`,
    );
  }
  for (let i = 0; i < x.length; i++) (b as Float64Array)[i] = x[i];
  return b;
}

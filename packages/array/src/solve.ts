import { ArgumentError } from '@dtask/core';
import { DArray } from './darray.js';
import { type LUOptions, lu } from './lu.js';
import { describe } from './parts.js';

/**
 * Julia's `A \ b` on a square 2-D `DArray` `a`: `x` with `a·x = b`, through `lu(a, options)`
 * (partial pivoting; `SingularError` for a singular `a`). `b` is a `DArray` (a vector or a
 * matrix with `a`'s number of rows: the result is shaped and blocked as `b`) or a plain array
 * (a `Float64Array` back).
 */
export function solve(a: DArray, b: DArray, options?: LUOptions): Promise<DArray>;
export function solve(a: DArray, b: ArrayLike<number>, options?: LUOptions): Promise<Float64Array>;
export async function solve(
  a: DArray,
  b: DArray | ArrayLike<number>,
  options: LUOptions = {},
): Promise<DArray | Float64Array> {
  if (a instanceof DArray && a.shape.length === 2 && a.shape[0] !== a.shape[1]) {
    throw new ArgumentError(`solve(a, b): a must be square; got ${describe(a)}`);
  }
  const f = await lu(a, { ...options, check: true });
  return f.solve(b as DArray);
}

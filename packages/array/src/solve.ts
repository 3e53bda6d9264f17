import { ArgumentError } from '@dtask/core';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import { requireReal } from './dtype-error.js';
import { type LUOptions, lu } from './lu.js';
import { describe } from './parts.js';
import { qr } from './qr.js';

/**
 * Julia's `A \ b` on a 2-D `DArray` `a`: for a square `a`, `x` with `a·x = b` through
 * `lu(a, options)` (partial pivoting; `SingularError` for a singular `a`); for a tall one
 * (more rows than columns), the least-squares `x` through `qr(a)`. `b` is a `DArray` (a vector
 * or a matrix with `a`'s number of rows: the result has `b`'s block sizes) or a plain array (a
 * `Float64Array` back). A wide `a` (an underdetermined system) is an `ArgumentError`.
 */
export function solve(a: DArray, b: DArray, options?: LUOptions): Promise<DArray>;
export function solve(a: DArray, b: ArrayLike<number>, options?: LUOptions): Promise<Float64Array>;
export async function solve(
  a: DArray,
  b: DArray | ArrayLike<number>,
  options: LUOptions = {},
): Promise<DArray | Float64Array> {
  if (!isComplex((a as { dtype?: string } | null)?.dtype ?? '')) {
    requireReal('solve', b, 'solve(a, b)', 'a complex b needs a complex a: solve(complex(a), b)');
  }
  if (a instanceof DArray && a.shape.length === 2 && a.shape[0] !== a.shape[1]) {
    if (a.shape[0] < a.shape[1]) {
      throw new ArgumentError(
        `solve(a, b): a is wider than tall (${describe(a)}): an underdetermined system has no unique solution here; give a square or tall matrix`,
      );
    }
    const f = await qr(a, {
      ...(options.tile ? { tile: options.tile } : {}),
      ...(options.scope ? { scope: options.scope } : {}),
    });
    return f.solve(b as DArray);
  }
  const f = await lu(a, { ...options, check: true });
  return f.solve(b as DArray);
}

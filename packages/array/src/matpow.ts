import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { DArray } from './darray.js';
import { describe } from './parts.js';

/**
 * Dagger's `A^p` of a square 2-D `DArray` and a positive integer `p`: the product of `p`
 * copies of `a`, left to right (`((a·a)·a)…`, as Dagger folds it, so `matpow(a, 3)` equals
 * `a.matmul(a).matmul(a)` to the bit), each product one task per result block; `p = 1` is a
 * copy. Returns at once, as `matmul` does. `ArgumentError` for a matrix that is not square or a
 * `p` that is not a positive integer (Dagger's fold has no `A^0`).
 */
export function matpow(a: DArray, p: number): DArray {
  if (!(a instanceof DArray) || a.shape.length !== 2 || a.shape[0] !== a.shape[1]) {
    throw new ArgumentError(
      `matpow(a, p): a must be a square 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  if (!Number.isInteger(p) || p < 1) {
    throw new ArgumentError(
      `matpow(a, p): p must be a positive integer (Dagger's A^p multiplies p copies of A); got ${describeValue(p)}`,
    );
  }
  if (p === 1) return a.map((x) => x);
  let out = a;
  for (let i = 1; i < p; i++) out = out.matmul(a);
  return out;
}

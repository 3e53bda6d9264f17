import { ArgumentError } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { DArray } from './darray.js';
import { requireReal } from './dtype-error.js';
import { describe } from './parts.js';

/**
 * Julia's (and Dagger's) `issymmetric(A)` of a 2-D `DArray`: whether it is square and equal to
 * its transpose, element for element (`==`, so a NaN makes it false). One task per block
 * compares it with the transpose's block (re-blocked to `a`'s blocks), where the block lives;
 * the counts of differences are summed. `ArgumentError` for an array that is not 2-D.
 */
export async function issymmetric(a: DArray): Promise<boolean> {
  requireReal('issymmetric', a, 'issymmetric(a)');
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `issymmetric(a): a must be a 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  if (String(a.dtype).startsWith('complex')) {
    throw new ArgumentError(
      `issymmetric(a): complex arrays are not compared here yet; got ${describe(a)}; compare a with a.transpose() element by element`,
    );
  }
  if (a.shape[0] !== a.shape[1]) return false;
  const t = a.transpose().reblock(a.blocks);
  const differ = a.map((x: number, y: number) => (x === y ? 0 : 1), t);
  return (await differ.sum()) === 0;
}

/**
 * Julia's (and Dagger's) `ishermitian(A)`: for real element types, `issymmetric(A)` (complex
 * arrays are an `ArgumentError`, as for `issymmetric`).
 */
export function ishermitian(a: DArray): Promise<boolean> {
  return issymmetric(a);
}

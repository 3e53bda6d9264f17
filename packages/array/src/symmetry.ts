import { ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { complexDiffCount } from './complex-kernels.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import { describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';

/**
 * Julia's (and Dagger's) `issymmetric(A)` of a 2-D `DArray`: whether it is square and equal to
 * its transpose, element for element (`==`, so a NaN makes it false; a complex one: both parts,
 * not conjugated). One task per block compares it with the transpose's block (re-blocked to
 * `a`'s blocks), where the block lives; the counts of differences are summed. `ArgumentError`
 * for an array that is not 2-D.
 */
export function issymmetric(a: DArray): Promise<boolean> {
  return compareTransposed(a, false, 'issymmetric(a)');
}

/**
 * Julia's (and Dagger's) `ishermitian(A)`: whether a 2-D `DArray` is square and equal to its
 * conjugate transpose (for real element types, `issymmetric(A)`).
 */
export function ishermitian(a: DArray): Promise<boolean> {
  return compareTransposed(a, true, 'ishermitian(a)');
}

async function compareTransposed(a: DArray, conjugate: boolean, what: string): Promise<boolean> {
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `${what}: a must be a 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  if (a.shape[0] !== a.shape[1]) return false;
  const t = a.transpose().reblock(a.blocks);
  if (isComplex(a.dtype)) {
    const spawn = spawnerOf(a.context) as unknown as (...x: unknown[]) => DTask<number>;
    const counts = await Promise.all(
      a.chunks.map((c, k) => spawn(ownerOf(c, 0), complexDiffCount, c, t.chunks[k], conjugate)),
    );
    return counts.every((x) => x === 0);
  }
  const differ = a.map((x: number, y: number) => (x === y ? 0 : 1), t);
  return (await differ.sum()) === 0;
}

// Element-wise arithmetic where either operand is complex: unfused, one task per block.
import { ArgumentError, type DTask } from '@dtask/core';
import { complexBinaryBlock } from './complex-kernels.js';
import { isComplex } from './dtype.js';
import {
  type BinaryOp,
  type ElementwiseOptions,
  isDArray,
  sameBlocking,
  widerDtype,
} from './elementwise.js';
import type { Block } from './kernels.js';
import { type ArrayData, dataOf, describe, type Parts, sameList } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';
import { reblockParts } from './slicing.js';

/**
 * `a op other` where either side is complex, one task per block where `a`'s block lives:
 * `other` a number (a real scalar) or an array of `a`'s shape (re-blocked to `a`'s blocks with
 * `{ reblock: true }`, else blocked alike). Complex arrays do not broadcast.
 */
export function complexBinaryParts(
  a: ArrayData,
  other: ArrayData | number,
  op: BinaryOp,
  options: ElementwiseOptions = {},
): Parts {
  const what = `da.${op}(other)`;
  const spawn = spawnerOf(a.context) as unknown as (...x: unknown[]) => DTask<Block>;
  if (typeof other === 'number') {
    const dtype = a.dtype;
    const chunks = a.chunks.map((c) =>
      spawn(ownerOf(c, 0), complexBinaryBlock, c, other, op, dtype, true, false),
    );
    return { shape: a.shape, blocks: a.blocks, dtype, chunks };
  }
  if (!isDArray(other)) throw new ArgumentError(`${what}: other must be a DArray or a number`);
  if (!sameList(a.shape, other.shape)) {
    throw new ArgumentError(
      `${what}: complex arrays combine element by element with an array of the same shape (they do not broadcast); got ${describe(a)} and ${describe(other)}`,
    );
  }
  let b = other;
  if (!sameBlocking(a, b)) {
    if (options.reblock !== true) {
      throw new ArgumentError(
        `${what}: blocks must match; got ${describe(a)} and ${describe(b)}; pass { reblock: true } or re-block with other.reblock(da.blocks)`,
      );
    }
    const parts = reblockParts(b, a.blocks);
    if (parts !== undefined) b = dataOf(parts, b.context);
  }
  let dtype = widerDtype(a.dtype, b.dtype);
  if (!isComplex(dtype)) dtype = 'complex128';
  const ca = isComplex(a.dtype);
  const cb = isComplex(b.dtype);
  const chunks = a.chunks.map((c, k) =>
    spawn(ownerOf(c, 0), complexBinaryBlock, c, b.chunks[k], op, dtype, ca, cb),
  );
  return { shape: a.shape, blocks: a.blocks, dtype, chunks };
}

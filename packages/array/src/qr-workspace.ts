// Dagger's workspace-level QR calls on a factorization: `porgqr!` (forming Q or Qᵀ into a
// matrix) and `pormqr!` (multiplying by them from either side). Dagger passes the packed
// factors and their `T` workspace; here the factorization `F` holds both.
import { ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { Blocks } from './blocks.js';
import { copyto } from './copyto.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { QR } from './qr.js';

/** A new `rows × cols` Float64 block holding the first `cols` columns of the identity. */
export function identityBlock(rows: number, cols: number): Block {
  const data = new Float64Array(new SharedArrayBuffer(8 * rows * cols));
  for (let i = 0; i < Math.min(rows, cols); i++) data[i + i * rows] = 1;
  return { data, shape: [rows, cols], strides: [1, rows], offset: 0 };
}

/** A new complex `rows × cols` block (interleaved re, im) holding the identity's first columns. */
export function identityBlockComplex(rows: number, cols: number): Block {
  const data = new Float64Array(new SharedArrayBuffer(16 * rows * cols));
  for (let i = 0; i < Math.min(rows, cols); i++) data[2 * (i + i * rows)] = 1;
  return { data, shape: [rows, cols], strides: [1, rows], offset: 0 };
}

/**
 * Dagger's `porgqr!(trans, A, T, Q)`: writes the first `c` columns of the full `m × m` factor
 * `Q` of `f` (with `adjoint`, of `Qᵀ`, or `Qᴴ` of a complex `f`: Dagger's `trans` `'T'`/`'C'`) into `q`, an `m × c` `DArray`
 * or view (`c ≤ m`; what it held is replaced, as Dagger's identity start makes it), a task per
 * column block; resolves to `q`.
 */
export async function porgqr(
  f: QR,
  q: DArray,
  options: { adjoint?: boolean } = {},
): Promise<DArray> {
  const m = f.Q.shape[0];
  if (!(f instanceof QR) || !(q instanceof DArray) || q.shape.length !== 2 || q.shape[0] !== m) {
    throw new ArgumentError(
      `porgqr(F, q): F must be a QR factorization and q a 2-D DArray with its ${m} rows; got ${q instanceof DArray ? describe(q) : describeValue(q)}`,
    );
  }
  if (q.shape[1] > m) {
    throw new ArgumentError(`porgqr(F, q): q has more columns than Q's ${m}; got ${describe(q)}`);
  }
  const c = q.shape[1];
  const complex = isComplex(f.Q.dtype);
  const eye = spawnerOf(q.context)(
    complex ? identityBlockComplex : identityBlock,
    m,
    c,
  ) as DTask<Block>;
  const dtype = complex ? 'complex128' : 'float64';
  const value = new DArray([m, c], new Blocks(m, c), dtype, [eye], q.context).reblock(
    new Blocks(m, Math.min(q.blocks.sizes[1], Math.max(c, 1))),
  );
  await f.lmulQ(value, { adjoint: options.adjoint ?? false });
  copyto(q, value);
  return q;
}

/**
 * Dagger's `pormqr!(side, trans, A, T, C)`: `c ← Q·c`, `Qᵀ·c` (`side` `'L'`) or `c·Q`, `c·Qᵀ`
 * (`'R'`), `trans` `'N'` or `'T'`/`'C'` (`Qᵀ`, or `Qᴴ` of a complex factorization), in place: `F.lmulQ` and
 * `F.rmulQ` with `adjoint`. Resolves to `c`.
 */
export async function pormqr(
  side: 'L' | 'R',
  trans: 'N' | 'T' | 'C',
  f: QR,
  c: DArray,
): Promise<DArray> {
  if ((side !== 'L' && side !== 'R') || (trans !== 'N' && trans !== 'T' && trans !== 'C')) {
    throw new ArgumentError(
      `pormqr(side, trans, F, c): side must be 'L' or 'R' and trans 'N', 'T' or 'C'; got ${describeValue(side)}, ${describeValue(trans)}`,
    );
  }
  if (!(f instanceof QR)) {
    throw new ArgumentError(
      `pormqr(side, trans, F, c): F must be a QR factorization; got ${describeValue(f)}`,
    );
  }
  const adjoint = trans !== 'N';
  return side === 'L' ? f.lmulQ(c, { adjoint }) : f.rmulQ(c, { adjoint });
}

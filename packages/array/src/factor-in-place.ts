// Julia's in-place factorizations on a DArray (`lu!`, `qr!`): each factors as its allocating
// form does, then writes the packed factors into the array as `copyto` writes (the array's
// blocks get new tasks; arrays made from it before keep the old values; a view writes through
// to its parent).
import { ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { Blocks } from './blocks.js';
import { copyto } from './copyto.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import type { Block } from './kernels.js';
import { type LU, type LUOptions, lu, luWork } from './lu.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { type QR, type QROptions, qr, qrTiles, qrWork } from './qr.js';
import { qrPartComplex } from './qr-complex-kernels.js';
import { qrPart } from './qr-kernels.js';
import type { Matrix } from './tiled-run.js';

/**
 * Julia's (and Dagger's) `lu!(A)`: factors `a` as `lu(a, options)` does and writes the packed
 * factors into `a` (LAPACK's storage: `U` on and above the diagonal, `L`'s multipliers below
 * it); resolves to the factorization. `a` must be a float64, float32, complex128 or complex64 2-D
 * array.
 */
export async function luInPlace(a: DArray, options: LUOptions = {}): Promise<LU> {
  checkFloat(a, 'luInPlace(a)', 'lu(a)');
  const f = await lu(a, options);
  writePacked(a, luWork(f));
  return f;
}

/**
 * Julia's (and Dagger's) `qr!(A)` (with `{ p }`, `qr!(A; p)`: CAQR): factors `a` as
 * `qr(a, options)` does and writes the packed factors into `a` (LAPACK's storage: `R` on and
 * above the diagonal, the Householder vectors below it); resolves to the factorization. `a`
 * must be a float64, float32, complex128 or complex64 2-D array.
 */
export async function qrInPlace(a: DArray, options: QROptions = {}): Promise<QR> {
  checkFloat(a, 'qrInPlace(a)', 'qr(a)');
  const f = await qr(a, options);
  writePacked(a, qrWork(f));
  return f;
}

/**
 * Dagger's `geqrf!(A, T)`: flat tile QR of `a` in place (a `geqrt` task per diagonal tile, a
 * `tsqrt` per tile below it, each followed by its updates of the tiles to the right), the
 * packed factors written into `a` as `qrInPlace` writes them. Dagger's `T` workspace is held by
 * the factorization it resolves to (`F.lmulQ`/`F.rmulQ`, `porgqr`, `pormqr` use it).
 */
export async function geqrf(a: DArray, options: Omit<QROptions, 'p'> = {}): Promise<QR> {
  checkFloat(a, 'geqrf(a)', 'qr(a)');
  const f = await qrTiles(a, { ...options, p: 1 });
  writePacked(a, qrWork(f));
  return f;
}

/**
 * Dagger's `cageqrf!(A, T; p)`: communication-avoiding QR of `a` in place with `p` domains
 * (`p` dividing the tile rows; `p = 1` is `geqrf`), written into `a` as `qrInPlace` writes.
 */
export async function cageqrf(a: DArray, options: QROptions = {}): Promise<QR> {
  checkFloat(a, 'cageqrf(a)', 'qr(a, { p })');
  const f = await qrTiles(a, options);
  writePacked(a, qrWork(f));
  return f;
}

/** The top-left `m × n` of the factored `work` (the packed factors) copied into `a`. */
function writePacked(a: DArray, work: DTask<Matrix>): void {
  const [m, n] = a.shape;
  const complex = isComplex(a.dtype);
  const part = complex ? qrPartComplex : qrPart;
  const chunk = spawnerOf(a.context)(part, work, m, n, 0, false) as DTask<Block>;
  const dtype = complex ? 'complex128' : 'float64';
  copyto(a, new DArray([m, n], new Blocks(m, n), dtype, [chunk], a.context));
}

function checkFloat(a: DArray, what: string, instead: string): void {
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `${what}: a must be a 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  if (!['float64', 'float32', 'complex128', 'complex64'].includes(a.dtype)) {
    throw new ArgumentError(
      `${what}: a must be float64, float32, complex128 or complex64 to hold its factors; got ${describe(a)}; use ${instead} for new Float64 factors`,
    );
  }
}

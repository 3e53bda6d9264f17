// Julia's triangular parts of a matrix (`triu`, `tril`; `UpperTriangular(A)` and
// `LowerTriangular(A)` as arrays) and `isapprox` of two arrays, as Dagger's tests compare
// triangular factors (`triu(R) ≈ R`, `isapprox(UpperTriangular(DA), UpperTriangular(DB))`).
import { ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { gridIndices } from './blocks.js';
import { DArray } from './darray.js';
import type { Block } from './kernels.js';
import { norm } from './norms.js';
import { describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';

/**
 * A new block of `dtype` with `block`'s elements on and above diagonal `k` (`upper`: column −
 * row ≥ `k`) or on and below it (column − row ≤ `k`), the others zero; `rowStart`, `colStart`
 * place the block in the matrix. Complex blocks move (re, im) pairs. Self-contained.
 */
export function triangleBlock(
  block: Block,
  rowStart: number,
  colStart: number,
  k: number,
  upper: boolean,
  dtype: string,
): Block {
  const [m, n] = block.shape;
  const w = dtype.startsWith('complex') ? 2 : 1;
  const name =
    w === 2
      ? dtype === 'complex64'
        ? 'Float32Array'
        : 'Float64Array'
      : `${dtype[0].toUpperCase()}${dtype.slice(1)}Array`;
  const C = (globalThis as Record<string, unknown>)[name] as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer(w * m * n * C.BYTES_PER_ELEMENT));
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      const d = colStart + j - (rowStart + i);
      if (upper ? d < k : d > k) continue;
      const at = block.offset + i * block.strides[0] + j * block.strides[1];
      for (let r = 0; r < w; r++) data[w * (i + j * m) + r] = block.data[w * at + r];
    }
  }
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}

function triangle(a: DArray, k: number, upper: boolean, what: string): DArray {
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `${what}: a must be a 2-D DArray (a matrix); got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  if (!Number.isInteger(k)) {
    throw new ArgumentError(
      `${what}: k must be an integer (a diagonal offset); got ${describeValue(k)}`,
    );
  }
  const spawn = spawnerOf(a.context);
  const [b0, b1] = a.blocks.sizes;
  const chunks = gridIndices(a.grid).map(([i, j], at) => {
    const c = a.chunks[at];
    return spawn(ownerOf(c, 0), triangleBlock, c, i * b0, j * b1, k, upper, a.dtype);
  });
  return new DArray(a.shape, a.blocks, a.dtype, chunks as DTask<Block>[], a.context);
}

/**
 * Julia's `triu(A, k = 0)`: a new `DArray` (`a`'s shape, blocks and dtype) with `a`'s elements
 * on and above diagonal `k` (0 the main diagonal, 1 the one above it, −1 below) and zeros
 * elsewhere; `UpperTriangular(A)` as an array. A task per block, where it lives.
 */
export function triu(a: DArray, k = 0): DArray {
  return triangle(a, k, true, 'triu(a, k)');
}

/** Julia's `tril(A, k = 0)`: the elements on and below diagonal `k`, zeros above (`LowerTriangular(A)`). */
export function tril(a: DArray, k = 0): DArray {
  return triangle(a, k, false, 'tril(a, k)');
}

/** Options of `isapprox` (Julia's keywords). */
export interface IsApproxOptions {
  /** Relative tolerance; default `√eps` of the element type (0 for integers, or when `atol > 0`). */
  rtol?: number;
  /** Absolute tolerance; default 0. */
  atol?: number;
}

/** Julia's `rtoldefault`: `√eps` of a float type, 0 for an integer one. */
function defaultRtol(dtype: string): number {
  if (dtype === 'float32' || dtype === 'complex64') return Math.sqrt(2 ** -23);
  if (dtype === 'float64' || dtype === 'complex128') return Math.sqrt(2 ** -52);
  return 0;
}

/**
 * Julia's `isapprox(A, B)` (`A ≈ B`) of two `DArray`s of one shape (any blockings; the second
 * is re-blocked to the first): `norm(A − B) ≤ max(atol, rtol·max(norm(A), norm(B)))`, with
 * Julia's defaults (`atol` 0; `rtol` `√eps` of the wider element type, 0 for integers or when
 * `atol > 0`), the norms by blocks where they live. A difference that is not finite (NaN,
 * Infinity) is not approximately equal. Arrays of different shapes are an `ArgumentError`
 * (Julia's `DimensionMismatch`). Dagger's tests compare triangular factors this way:
 * `isapprox(triu(a), triu(b))` is `isapprox(UpperTriangular(A), UpperTriangular(B))`.
 */
export async function isapprox(
  a: DArray,
  b: DArray,
  options: IsApproxOptions = {},
): Promise<boolean> {
  const what = 'isapprox(a, b)';
  if (!(a instanceof DArray) || !(b instanceof DArray)) {
    throw new ArgumentError(
      `${what}: a and b must be DArrays; got ${describeValue(a)}, ${describeValue(b)}`,
    );
  }
  if (a.shape.length !== b.shape.length || a.shape.some((s, d) => s !== b.shape[d])) {
    throw new ArgumentError(
      `${what}: a and b must have one shape; got ${describe(a)} and ${describe(b)}`,
    );
  }
  const atol = options.atol ?? 0;
  const rtol =
    options.rtol ?? (atol > 0 ? 0 : Math.max(defaultRtol(a.dtype), defaultRtol(b.dtype)));
  if (!(atol >= 0) || !(rtol >= 0)) {
    throw new ArgumentError(
      `${what}: atol and rtol must be numbers ≥ 0; got atol ${describeValue(atol)}, rtol ${describeValue(rtol)}`,
    );
  }
  const [d, na, nb] = await Promise.all([norm(a.sub(b, { reblock: true })), norm(a), norm(b)]);
  return Number.isFinite(d) && d <= Math.max(atol, rtol * Math.max(na, nb));
}

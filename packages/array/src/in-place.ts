// Julia's in-place linear algebra and filling on a DArray (`mul!`, `cholesky!`, `rand!`,
// `randn!`), and `similar`: each computes new blocks by tasks and writes them into the array
// as `da.set` and `copyto` do (the array's blocks get the new tasks; arrays made from it before
// keep the old values; a view writes through to its parent).
import { ArgumentError, type DTask } from '@dtask/core';
import type { AssignmentGrid } from './assign-grid.js';
import type { AutoBlocks } from './auto-blocks.js';
import { Blocks, gridIndices } from './blocks.js';
import { type CholeskyOptions, cholesky } from './cholesky.js';
import { adjoint } from './complex.js';
import { upperOverComplex } from './complex-kernels.js';
import { copyto } from './copyto.js';
import { DArray } from './darray.js';
import { checkDtype, type DType, FLOAT_DTYPES, isComplex } from './dtype.js';
import { requireDtype, requireReal } from './dtype-error.js';
import { internals } from './internals.js';
import type { Block } from './kernels.js';
import { describe, sameList } from './parts.js';
import { type Assignment, spawnerOf } from './placement.js';
import { randn } from './randn.js';

/** `value`'s blocks as `dest`'s: its very tasks when the blocking and dtype agree, else a copy. */
function writeAll(dest: DArray, value: DArray): DArray {
  if (
    dest.parent === undefined &&
    value.dtype === dest.dtype &&
    sameList(value.blocks.sizes, dest.blocks.sizes)
  ) {
    internals().write(dest, new Map(value.chunks.map((c, k) => [k, c])));
    return dest;
  }
  return copyto(dest, value);
}

function checkDArray(x: unknown, name: string, what: string): asserts x is DArray {
  if (!(x instanceof DArray)) {
    throw new ArgumentError(`${what}: ${name} must be a DArray; got ${String(x)}`);
  }
}

/**
 * Julia's (and Dagger's) `mul!(C, A, B)` and `mul!(C, A, B, α, β)`: `c ← α·a·b + β·c` in place
 * (`a·b` as `a.matmul(b)`: a matrix product, or matrix × vector for a vector `b`), returning
 * `c`. `c` must have the product's shape (any blocking and dtype: the result is converted as
 * `copyto` converts); `c` may be a view, or `a` or `b` itself (they are read before the write).
 */
export function mulInto(c: DArray, a: DArray, b: DArray, alpha = 1, beta = 0): DArray {
  const what = 'mulInto(c, a, b)';
  for (const x of [c, a, b]) requireReal('mulInto', x, what);
  checkDArray(c, 'c', what);
  checkDArray(a, 'a', what);
  checkDArray(b, 'b', what);
  if (typeof alpha !== 'number' || typeof beta !== 'number') {
    throw new ArgumentError(`${what}: alpha and beta must be numbers; got ${alpha}, ${beta}`);
  }
  const product = a.matmul(b);
  if (!sameList(product.shape, c.shape)) {
    throw new ArgumentError(
      `${what}: c must have a·b's shape [${product.shape.join(', ')}]; got ${describe(c)}; make it with similar(a·b) or DArray.zeros([${product.shape.join(', ')}], blocks)`,
    );
  }
  let value = alpha === 1 ? product : product.mul(alpha);
  if (beta !== 0) value = value.add(c.reblock(value.blocks).mul(beta));
  return writeAll(c, value);
}

/**
 * Julia's (and Dagger's) `cholesky!(A)`: factors the symmetric (Hermitian) positive definite `a`
 * as `cholesky` does and writes `U = Lᵀ` (`Lᴴ`) into `a`'s upper triangle, its strict lower
 * triangle keeping `a`'s elements (Julia's storage of `cholesky!(A)`); resolves to `L`. `a` must
 * be a float64, float32, complex128 or complex64 array.
 */
export async function choleskyInPlace(a: DArray, options: CholeskyOptions = {}): Promise<DArray> {
  checkDArray(a, 'a', 'choleskyInPlace(a)');
  requireDtype(
    'choleskyInPlace',
    a.dtype,
    [...FLOAT_DTYPES, 'complex128', 'complex64'],
    `choleskyInPlace(a) of ${describe(a)}`,
    'its factor needs a float or complex array to live in: use cholesky(a) for a new Float64 factor',
  );
  const l = await cholesky(a, options);
  const complex = isComplex(a.dtype);
  const u = (complex ? adjoint(l) : l.transpose()).reblock(a.blocks);
  const spawn = spawnerOf(a.context);
  const [b0, b1] = a.blocks.sizes;
  const chunks = gridIndices(a.grid).map(([i, j]) =>
    spawn(
      complex ? upperOverComplex : upperOver,
      u.chunk(i, j),
      a.chunk(i, j),
      i * b0,
      j * b1,
      a.dtype,
    ),
  );
  writeAll(a, new DArray(a.shape, a.blocks, a.dtype, chunks as DTask<Block>[], a.context));
  return l;
}

/**
 * A new block of `dtype`: `upper`'s elements on and above the global diagonal, `rest`'s below
 * it (`rowStart`, `colStart`: the block's place in the array). Self-contained.
 */
export function upperOver(
  upper: Block,
  rest: Block,
  rowStart: number,
  colStart: number,
  dtype: string,
): Block {
  const [m, n] = rest.shape;
  const C = (dtype === 'float32' ? Float32Array : Float64Array) as Float64ArrayConstructor;
  const data = new C(new SharedArrayBuffer(m * n * C.BYTES_PER_ELEMENT));
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) {
      const from = rowStart + i <= colStart + j ? upper : rest;
      data[i + j * m] = from.data[from.offset + i * from.strides[0] + j * from.strides[1]];
    }
  }
  return { data, shape: [m, n], strides: [1, m], offset: 0 };
}

/** Options of `randInto` and `randnInto`. */
export interface FillOptions {
  /** A seed: the same seed gives the same numbers (default: fresh ones each call). */
  seed?: number;
}

/**
 * Julia's (and Dagger's) `rand!(A)`: fills `a` in place with fresh uniform values in [0, 1)
 * (integers 0–99 for the integer dtypes, as `DArray.rand`), a task per block; returns `a`.
 */
export function randInto(a: DArray, options: FillOptions = {}): DArray {
  checkDArray(a, 'a', 'randInto(a)');
  const fresh = DArray.rand(a.shape, a.blocks, { ...options, dtype: a.dtype, context: a.context });
  return writeAll(a, fresh);
}

/**
 * Julia's (and Dagger's) `randn!(A)`: fills the float64 or float32 `a` in place with standard
 * normal values (as `randn`), a task per block; returns `a`.
 */
export function randnInto(a: DArray, options: FillOptions = {}): DArray {
  checkDArray(a, 'a', 'randnInto(a)');
  requireDtype(
    'randnInto',
    a.dtype,
    FLOAT_DTYPES,
    `randnInto(a) of ${describe(a)}`,
    'normal values need a real float type: fill a float64 or float32 array',
  );
  return writeAll(a, randn(a.shape, a.blocks, { ...options, dtype: a.dtype, context: a.context }));
}

/** Options of `similar`. */
export interface SimilarOptions {
  /** The new array's element type; default `a`'s. */
  dtype?: DType;
  /** Its shape; default `a`'s. */
  shape?: readonly number[];
  /** Its blocks; default `a`'s block sizes (clipped to a smaller shape). */
  blocks?: Blocks | AutoBlocks;
  /** Where each block is made (as the constructors' `assign`). */
  assign?: Assignment | AssignmentGrid;
}

/**
 * Julia's (and Dagger's) `similar(A)`: a new array like `a` (its shape, blocks, dtype and
 * context, each replaceable), its blocks made by tasks. Julia leaves the elements undefined;
 * here they are zeros (JavaScript's typed arrays start so), as `DArray.zeros` makes them.
 */
export function similar(a: DArray, options: SimilarOptions = {}): DArray {
  checkDArray(a, 'a', 'similar(a)');
  const shape = options.shape ?? a.shape;
  const dtype = checkDtype(options.dtype ?? a.dtype, 'similar(a, { dtype })');
  const blocks =
    options.blocks ??
    new Blocks(
      ...shape.map((s, d) => Math.max(1, Math.min(a.blocks.sizes[d] ?? s, Math.max(s, 1)))),
    );
  return DArray.zeros(shape, blocks, {
    dtype,
    context: a.context,
    ...(options.assign ? { assign: options.assign } : {}),
  });
}

import { type AbstractScope, ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { Blocks } from './blocks.js';
import { adjoint } from './complex.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import { requireReal } from './dtype-error.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { svdSolveBlockComplex, svdWholeComplex } from './svd-complex-kernels.js';
import { type SVDParts, svdPart, svdSolveBlock, svdValues, svdWhole } from './svd-kernels.js';

/** Options of `svd` and `svdvals`. */
export interface SVDOptions {
  /** Where the matrix is gathered and decomposed; default: where the scheduler puts it. */
  scope?: AbstractScope;
  /** Julia's `full`: only `false` (the thin SVD), as Dagger's. */
  full?: boolean;
}

/**
 * A thin singular value decomposition `A = U·diag(S)·Vt` of an `m × n` matrix (Julia's `SVD`,
 * what `svd(A)` gives; `k = min(m, n)`): `U` (`m × k`) and `Vt` (`k × n`) as `DArray`s with
 * `A`'s block sizes, `S` descending.
 */
export class SVD {
  /** The `m × k` left singular vectors (Julia's `F.U`). */
  readonly U: DArray;
  /** The `k` singular values, non-negative, descending (Julia's `F.S`). */
  readonly S: Float64Array;
  /** The `k × n` right singular vectors, transposed (Julia's `F.Vt`). */
  readonly Vt: DArray;
  readonly #parts: DTask<SVDParts>;
  readonly #shape: [number, number];

  /** Made by `svd`. */
  constructor(
    parts: DTask<SVDParts>,
    shape: [number, number],
    u: DArray,
    s: Float64Array,
    vt: DArray,
  ) {
    this.#parts = parts;
    this.#shape = shape;
    this.U = u;
    this.S = s;
    this.Vt = vt;
  }

  /** The right singular vectors `V` (`n × k`, Julia's `F.V`): `Vt`'s adjoint (its transpose when real). */
  get V(): DArray {
    return adjoint(this.Vt);
  }

  /** Whether `A` (and so `U`, `Vt`, the solutions) is complex. */
  get #complex(): boolean {
    return isComplex(this.U.dtype);
  }

  /** The solving kernel and its extra arguments for a `b` of `dtype` (undefined: `inv`). */
  #solver(dtype?: string): [Function, unknown[], 'float64' | 'complex128'] {
    if (this.#complex)
      return [svdSolveBlockComplex, [dtype !== undefined && isComplex(dtype)], 'complex128'];
    if (dtype !== undefined)
      requireReal(
        'solve',
        { dtype },
        'F.solve(b)',
        'a complex b needs the SVD of a complex matrix: svd(complex(a))',
      );
    return [svdSolveBlock, [], 'float64'];
  }

  /**
   * Julia's `F \ b`: the minimum-norm least-squares `x` (`n` rows) of `A·x = b`, singular values
   * at or below `eps·S[0]` taken as zero (Julia's `ldiv!` on an `SVD`); `b` a `DArray` with `A`'s
   * `m` rows (vector or matrix: one task per column block, the result with `b`'s block sizes)
   * or a plain array of `m` numbers (a `Float64Array` back).
   */
  solve(b: DArray): Promise<DArray>;
  solve(b: ArrayLike<number>): Promise<Float64Array>;
  async solve(b: DArray | ArrayLike<number>): Promise<DArray | Float64Array> {
    const [m, n] = this.#shape;
    const context = this.U.context;
    if (!(b instanceof DArray)) {
      const pairs = this.#complex && b !== null && typeof b === 'object' && b.length === 2 * m;
      if (b === null || typeof b !== 'object' || (b.length !== m && !pairs)) {
        throw new ArgumentError(
          `F.solve(b): b must be a DArray or an array of ${m} numbers (A's rows${this.#complex ? `; or ${2 * m}: interleaved re, im pairs` : ''}); got ${describeValue(b)}`,
        );
      }
      const dtype = pairs ? ('complex128' as const) : ('float64' as const);
      const x = await this.solve(
        DArray.from(Float64Array.from(b), new Blocks(m), { context, dtype }),
      );
      return (await x.collect()).data as Float64Array;
    }
    if (b.shape.length < 1 || b.shape.length > 2 || b.shape[0] !== m) {
      throw new ArgumentError(
        `F.solve(b): b must have ${m} rows (A's) and 1 or 2 dimensions; got ${describe(b)}`,
      );
    }
    const spawn = spawnerOf(b.context);
    const vector = b.shape.length === 1;
    const whole = b.reblock(vector ? new Blocks(m) : new Blocks(m, b.blocks.sizes[1]));
    const [kernel, extra, dtype] = this.#solver(b.dtype);
    const chunks = whole.chunks.map((c) => spawn(kernel, this.#parts, c, EPS, ...extra));
    const shape = vector ? [n] : [n, b.shape[1]];
    const blocks = vector ? new Blocks(n) : new Blocks(n, b.blocks.sizes[1]);
    const sizes = b.blocks.sizes.map((s, d) => Math.min(s, Math.max(shape[d], 1)));
    return new DArray(shape, blocks, dtype, chunks as DTask<Block>[], b.context).reblock(
      new Blocks(...sizes),
    );
  }

  /**
   * Julia's `inv(F)` (its pseudo-inverse `V·diag(S)⁺·Uᵀ`, `n × m`, singular values at or below
   * `eps·S[0]` taken as zero), a `DArray` with `U`'s block sizes, made by one task.
   */
  inv(): DArray {
    const [m, n] = this.#shape;
    const [kernel, extra, dtype] = this.#solver();
    const chunk = spawnerOf(this.U.context)(kernel, this.#parts, undefined, EPS, ...extra);
    const sizes = [Math.min(this.U.blocks.sizes[0], n), Math.min(this.U.blocks.sizes[1], m)];
    return new DArray(
      [n, m],
      new Blocks(n, m),
      dtype,
      [chunk as DTask<Block>],
      this.U.context,
    ).reblock(new Blocks(...sizes));
  }
}

const EPS = 2 ** -52;

/**
 * Julia's (and Dagger's) `svd(A)` of a 2-D `DArray`: the thin SVD, **gathered to one
 * processor** (one task assembles the matrix where the scheduler puts it, or in `scope`, and
 * decomposes it by one-sided Jacobi, accurate to working precision; tasks then cut `U` and
 * `Vt` into `A`'s block sizes). Dagger's tiled SVD is not distributed here. A complex128 or
 * complex64 `A` gives complex128 `U` and `Vt` (`Vᴴ`) and real `S` (complex one-sided Jacobi). `ArgumentError` for
 * an array that is not 2-D, an empty one, or `full: true` (Dagger refuses it too).
 */
export async function svd(a: DArray, options: SVDOptions = {}): Promise<SVD> {
  const [m, n] = checkMatrix(a, 'svd(a)', options);
  const complex = isComplex(a.dtype);
  const spawn = spawnerOf(a.context);
  const where = options.scope ? [{ scope: options.scope }] : [];
  const whole = a.reblock(new Blocks(m, n)).chunks[0];
  const decompose = complex ? svdWholeComplex : svdWhole;
  const parts = spawn(...where, decompose, whole) as unknown as DTask<SVDParts>;
  const s = (await spawn(svdValues, parts)) as unknown as Float64Array;
  const k = Math.min(m, n);
  const part = (name: 'u' | 'vt', rows: number, cols: number) => {
    const chunk = spawn(svdPart, parts, name) as DTask<Block>;
    const sizes = [Math.min(a.blocks.sizes[0], rows), Math.min(a.blocks.sizes[1], cols)];
    const dtype = complex ? 'complex128' : 'float64';
    return new DArray([rows, cols], new Blocks(rows, cols), dtype, [chunk], a.context).reblock(
      new Blocks(...sizes),
    );
  };
  return new SVD(parts, [m, n], part('u', m, k), s, part('vt', k, n));
}

/**
 * Julia's (and Dagger's) `svdvals(A)`: the singular values of a 2-D `DArray`, descending, as
 * `svd` computes them (gathered to one processor).
 */
export async function svdvals(a: DArray, options: SVDOptions = {}): Promise<Float64Array> {
  const [m, n] = checkMatrix(a, 'svdvals(a)', options);
  const spawn = spawnerOf(a.context);
  const where = options.scope ? [{ scope: options.scope }] : [];
  const decompose = isComplex(a.dtype) ? svdWholeComplex : svdWhole;
  const parts = spawn(...where, decompose, a.reblock(new Blocks(m, n)).chunks[0]);
  return (await spawn(svdValues, parts)) as unknown as Float64Array;
}

function checkMatrix(a: DArray, what: string, options: SVDOptions): [number, number] {
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `${what}: a must be a 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  if (a.shape[0] === 0 || a.shape[1] === 0)
    throw new ArgumentError(`${what}: a is empty: ${describe(a)}`);
  if (options.full !== undefined && options.full !== false) {
    throw new ArgumentError(
      `${what}: only the thin SVD ({ full: false }) is computed, as Dagger's; got full: ${describeValue(options.full)}`,
    );
  }
  return [a.shape[0], a.shape[1]];
}

import { type AbstractScope, ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { In, InOut } from '@dtask/datadeps';
import { Blocks } from './blocks.js';
import { DArray } from './darray.js';
import { type Complex, isComplex } from './dtype.js';
import { DtypeError, requireReal } from './dtype-error.js';
import type { Block } from './kernels.js';
import {
  luSolveBlockComplex,
  luSummaryComplex,
  luTriangleComplex,
  paddedComplexWithRows,
} from './lu-complex-kernels.js';
import {
  gemmNNComplex,
  getrfPanelComplex,
  laswpComplex,
  trsmUnitLowerComplex,
} from './lu-complex-tiles.js';
import {
  type LUSummary,
  luSolveBlock,
  luSummary,
  luTriangle,
  paddedWithRows,
} from './lu-kernels.js';
import { gemmNN, getrfPanel, laswp, trsmUnitLower } from './lu-tiles.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { SingularError } from './singular-error.js';
import { type Matrix, runTiled } from './tiled-run.js';

/** Options of `lu` (and of `solve` and `det` on a square matrix). */
export interface LUOptions {
  /** The side of the tiles datadeps factors; default: the smaller block size of the array. */
  tile?: number;
  /** Where the matrix is assembled, and so factored; default: where the scheduler puts it. */
  scope?: AbstractScope;
  /**
   * Julia's `check`: throw `SingularError` when a pivot is exactly zero (default true). With
   * `false` the factorization comes back anyway and its `info` says where.
   */
  check?: boolean;
  /** Partial pivoting by rows (Julia's `RowMaximum()`, the default); false: `NoPivot()`. */
  pivot?: boolean;
}

/** The kernels of one element kind: real (Float64) or complex (a real matrix of twice the rows). */
interface LUKit {
  /** Real rows per matrix row: 1, or 2 for the complex pairs. */
  rows: number;
  dtype: 'float64' | 'complex128';
  padded: Function;
  getrf: Function;
  laswp: Function;
  trsm: Function;
  gemm: Function;
  summary: Function;
  triangle: Function;
  solve: Function;
}

const REAL: LUKit = {
  rows: 1,
  dtype: 'float64',
  padded: paddedWithRows,
  getrf: getrfPanel,
  laswp,
  trsm: trsmUnitLower,
  gemm: gemmNN,
  summary: luSummary,
  triangle: luTriangle,
  solve: luSolveBlock,
};

const COMPLEX: LUKit = {
  rows: 2,
  dtype: 'complex128',
  padded: paddedComplexWithRows,
  getrf: getrfPanelComplex,
  laswp: laswpComplex,
  trsm: trsmUnitLowerComplex,
  gemm: gemmNNComplex,
  summary: luSummaryComplex,
  triangle: luTriangleComplex,
  solve: luSolveBlockComplex,
};

/** Each factorization's factored matrix (read by `luInPlace`). */
const WORK = new WeakMap<LU, DTask<Matrix>>();

/** The factored matrix of `f` (packed `L\U` in its top-left `m × n`, padded). */
export function luWork(f: LU): DTask<Matrix> {
  return WORK.get(f) as DTask<Matrix>;
}

/**
 * An LU factorization `P·A = L·U` of an `m × n` matrix (Julia's `LU`, what `lu(A)` gives): `L`
 * (`m × k`, `k = min(m, n)`) unit lower and `U` (`k × n`) upper triangular (trapezoidal when
 * `A` is not square), as `DArray`s with `A`'s block sizes, and the row permutation `p`.
 */
export class LU {
  /** The unit lower triangular factor (Julia's `F.L`), `m × min(m, n)`. */
  readonly L: DArray;
  /** The upper triangular factor (Julia's `F.U`), `min(m, n) × n`. */
  readonly U: DArray;
  /** The row permutation, 0-based (Julia's `F.p`, minus one): row `i` of `P·A` is row `p[i]` of `A`. */
  readonly p: Int32Array;
  /** 0, or the 1-based index of the first exactly zero pivot (Julia's `F.info`). */
  readonly info: number;
  readonly #factors: DTask<Matrix>;
  readonly #det: number;
  readonly #detIm: number;
  readonly #template: DArray;
  readonly #kit: LUKit;

  /** Made by `lu`. */
  constructor(
    template: DArray,
    factors: DTask<Matrix>,
    l: DArray,
    u: DArray,
    summary: LUSummary & { detIm?: number },
  ) {
    this.#template = template;
    this.#factors = factors;
    this.#kit = isComplex(template.dtype) ? COMPLEX : REAL;
    WORK.set(this, factors);
    this.L = l;
    this.U = u;
    this.p = summary.p;
    this.info = summary.info;
    this.#det = summary.det;
    this.#detIm = summary.detIm ?? 0;
  }

  /** The permutation matrix `P` (Julia's `F.P`) as a Float64 `DArray` with `A`'s blocks. */
  get P(): DArray {
    const n = this.p.length;
    const data = new Float64Array(n * n);
    for (let i = 0; i < n; i++) data[i + this.p[i] * n] = 1;
    return DArray.from({ data, shape: [n, n] }, this.#template.blocks, {
      context: this.#template.context,
    });
  }

  /**
   * The determinant of `A` (Julia's `det(F)`): 0 for a singular matrix; `ArgumentError` for a
   * matrix that is not square (Julia's `DimensionMismatch`).
   */
  det(): number {
    this.#checkSquare('F.det()');
    if (this.#kit === COMPLEX) {
      throw new DtypeError(
        'det',
        this.#template.dtype,
        `F.det(): the determinant of a complex matrix is complex; use F.complexDet() (or complexDet(a))`,
      );
    }
    return this.#det;
  }

  /**
   * The determinant of `A` as a complex number (Julia's `det(F)` of a complex matrix; the
   * imaginary part is 0 for a real one). `ArgumentError` for a matrix that is not square.
   */
  complexDet(): Complex {
    this.#checkSquare('F.complexDet()');
    return { re: this.#det, im: this.#detIm };
  }

  #checkSquare(what: string): void {
    const [m, n] = this.#template.shape;
    if (m !== n) {
      throw new ArgumentError(
        `${what}: A is ${m}×${n}, not square: it has no determinant and solves nothing uniquely; factor a square matrix, or use qr(a) for least squares`,
      );
    }
  }

  /**
   * `x` with `A·x = b` (Julia's `F \ b`): `b` a `DArray` (a vector of `n`, or `n × w`; the
   * result has `b`'s shape and blocks) or a plain array of `n` numbers (a `Float64Array`
   * back). One task per column block of `b`, each permuting its columns and solving with `L`
   * and `U`. A complex `A` takes a real or complex `b` (a plain array of `2n` numbers is
   * interleaved re, im pairs) and gives a complex128 `x` (pairs). Throws `SingularError` for a
   * singular `A`, `ArgumentError` for a `b` that does not fit, `DtypeError` for a complex `b`
   * with a real `A`.
   */
  solve(b: DArray): Promise<DArray>;
  solve(b: ArrayLike<number>): Promise<Float64Array>;
  async solve(b: DArray | ArrayLike<number>): Promise<DArray | Float64Array> {
    const n = this.p.length;
    this.#checkSquare('F.solve(b)');
    if (this.info > 0) {
      throw new SingularError(
        this.info,
        `F.solve(b): the matrix is singular (pivot ${this.info} is zero); nothing solves it`,
      );
    }
    if (!(b instanceof DArray)) {
      const pairs =
        this.#kit === COMPLEX && b !== null && typeof b === 'object' && b.length === 2 * n;
      if (b === null || typeof b !== 'object' || (b.length !== n && !pairs)) {
        throw new ArgumentError(
          `F.solve(b): b must be a DArray or an array of ${n} numbers (the matrix's side${this.#kit === COMPLEX ? `; or ${2 * n}: interleaved re, im pairs` : ''}); got ${describeValue(b)}`,
        );
      }
      const context = this.#template.context;
      const dtype = pairs ? ('complex128' as const) : ('float64' as const);
      const x = await this.solve(
        DArray.from(Float64Array.from(b), new Blocks(n), { context, dtype }),
      );
      return (await x.collect()).data as Float64Array;
    }
    if (b.shape.length < 1 || b.shape.length > 2 || b.shape[0] !== n) {
      throw new ArgumentError(
        `F.solve(b): b must have ${n} rows (the matrix's side) and 1 or 2 dimensions; got ${describe(b)}`,
      );
    }
    const spawn = spawnerOf(b.context);
    const vector = b.shape.length === 1;
    const width = vector ? 1 : b.blocks.sizes[1];
    const whole = b.reblock(vector ? new Blocks(n) : new Blocks(n, width));
    const kit = this.#kit;
    if (kit === REAL)
      requireReal(
        'solve',
        b,
        'F.solve(b)',
        'factor a complex matrix to solve with a complex b: lu(complex(a))',
      );
    const extra = kit === COMPLEX ? [isComplex(b.dtype)] : [];
    const chunks = whole.chunks.map((c) => spawn(kit.solve, this.#factors, this.p, c, n, ...extra));
    return new DArray(b.shape, whole.blocks, kit.dtype, chunks, b.context).reblock(b.blocks);
  }
}

/**
 * Julia's (and Dagger's) `lu(A)`: the LU factorization with partial pivoting of a 2-D `DArray`
 * of any shape, tiled as LAPACK's right-looking `getrf` through datadeps (as `cholesky` is): a
 * task assembles the matrix (zero-padded to a multiple of the tile) in a `SharedArrayBuffer`
 * where the scheduler puts it; then, for each of the `min(m, n)` pivots' columns of tiles, one task
 * factors the panel (pivot search over the whole column: `getrf`), tasks apply its row swaps
 * to the other columns (`laswp`), solve the tile row right of it (`trsm`) and update each
 * trailing tile (`gemm`), ordered by the tiles they read and write. On this process's threads
 * the tasks share the matrix; in a worker process they run where it is.
 *
 * A complex128 or complex64 `A` is factored the same way by complex tile kernels (plain
 * JavaScript, no SIMD; pivots by the largest `|re| + |im|`, as LAPACK's `zgetrf`), giving
 * complex128 `L` and `U`.
 *
 * Throws `SingularError` (Julia's `SingularException`) when a pivot is exactly zero, unless
 * `{ check: false }`; `ArgumentError` for an array that is not 2-D, an empty one or a bad tile.
 */
export async function lu(a: DArray, options: LUOptions = {}): Promise<LU> {
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `lu(a): a must be a 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  const [m, n] = a.shape;
  if (m === 0 || n === 0) throw new ArgumentError(`lu(a): a is empty: ${describe(a)}`);
  const kmin = Math.min(m, n);
  const tile = options.tile ?? Math.min(...a.blocks.sizes, Math.max(m, n));
  if (!Number.isInteger(tile) || tile < 1) {
    throw new ArgumentError(`lu(a, { tile }): tile must be a positive integer; got ${tile}`);
  }
  const pivot = options.pivot ?? true;
  const check = options.check ?? true;
  if (typeof pivot !== 'boolean' || typeof check !== 'boolean') {
    throw new ArgumentError('lu(a, { pivot, check }): pivot and check must be booleans');
  }
  const kit = isComplex(a.dtype) ? COMPLEX : REAL;
  const r = kit.rows;
  const spawn = spawnerOf(a.context);
  const up = (x: number) => Math.ceil(x / tile) * tile;
  const [mp, np] = [up(m), up(n)];
  const whole = a.reblock(new Blocks(m, n)).chunks[0];
  const where = options.scope ? [{ scope: options.scope }] : [];
  const matrix = spawn(...where, kit.padded, whole, mp, np, 1) as unknown as DTask<Matrix>;
  const [mt, nt, kt] = [mp / tile, np / tile, up(kmin) / tile];
  const span = (k: number) => [k * tile, (k + 1) * tile] as const;
  // The panel and the updates of the next column first: the critical path leads.
  const urgency = (column: number, panel: boolean) => 2 * (nt - column) + (panel ? 1 : 0);
  await runTiled(spawn, matrix, ({ at: atReal, spawn: tileTask }) => {
    // A complex matrix's row i is real rows 2i and 2i + 1.
    const at = (rows: readonly [number, number], cols: readonly [number, number]) =>
      atReal([r * rows[0], r * rows[1]], cols);
    for (let k = 0; k < kt; k++) {
      const rows = [k * tile, mp] as const;
      // The last panel of a matrix whose min(m, n) is not a multiple of the tile pivots fewer.
      const steps = Math.min(tile, kmin - k * tile);
      const pivots = atReal([r * mp, r * mp + 1], [k * tile, k * tile + steps]);
      tileTask(
        'getrf',
        urgency(k, true),
        kit.getrf,
        InOut(at(rows, span(k))),
        InOut(pivots),
        k * tile,
        pivot,
        steps,
      );
      for (let j = 0; j < nt; j++) {
        if (j === k) continue;
        if (pivot) {
          const priority = j > k ? urgency(j, false) : 0;
          tileTask('laswp', priority, kit.laswp, In(pivots), InOut(at(rows, span(j))), k * tile);
        }
        if (j < k) continue;
        tileTask(
          'trsm',
          urgency(j, false),
          kit.trsm,
          In(at(span(k), span(k))),
          InOut(at(span(k), span(j))),
        );
        for (let i = k + 1; i < mt; i++) {
          tileTask(
            'gemm',
            urgency(j, false),
            kit.gemm,
            In(at(span(i), span(k))),
            In(at(span(k), span(j))),
            InOut(at(span(i), span(j))),
          );
        }
      }
    }
  });
  const summary = (await spawn(kit.summary, matrix, m, kmin, mp)) as unknown as LUSummary;
  if (check && summary.info > 0) {
    throw new SingularError(
      summary.info,
      `lu(a): the matrix is singular (pivot ${summary.info} is exactly zero); pass { check: false } to get the factorization anyway (its info says where)`,
    );
  }
  const factor = (rows: number, cols: number, upper: boolean) => {
    const chunk = spawn(kit.triangle, matrix, rows, cols, upper) as DTask<Block>;
    const sizes = [Math.min(a.blocks.sizes[0], rows), Math.min(a.blocks.sizes[1], cols)];
    return new DArray([rows, cols], new Blocks(rows, cols), kit.dtype, [chunk], a.context).reblock(
      new Blocks(...sizes),
    );
  };
  return new LU(a, matrix, factor(m, kmin, false), factor(kmin, n, true), summary);
}

/**
 * Julia's `det(A)` of a square 2-D `DArray`, through `lu` (options as `lu`'s; `check` does not
 * apply): 0 for a singular matrix. A complex `A` throws `DtypeError` (its determinant is
 * complex: use `complexDet`).
 */
export async function det(a: DArray, options: Omit<LUOptions, 'check'> = {}): Promise<number> {
  checkSquare(a, 'det(a)');
  if (isComplex(a.dtype)) {
    throw new DtypeError(
      'det',
      a.dtype,
      `det(a): the determinant of a complex matrix is complex; use complexDet(a)`,
    );
  }
  return (await lu(a, { ...options, check: false })).det();
}

/**
 * Julia's `det(A)` of a square 2-D `DArray` as a complex number (for a complex `A`; a real one's
 * has imaginary part 0), through `lu` (options as `det`'s).
 */
export async function complexDet(
  a: DArray,
  options: Omit<LUOptions, 'check'> = {},
): Promise<Complex> {
  checkSquare(a, 'complexDet(a)');
  return (await lu(a, { ...options, check: false })).complexDet();
}

/** The side of a square 2-D `DArray`, else `ArgumentError` naming `what`. */
export function checkSquare(a: DArray, what: string): number {
  if (!(a instanceof DArray) || a.shape.length !== 2 || a.shape[0] !== a.shape[1]) {
    throw new ArgumentError(
      `${what}: a must be a square 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}${a instanceof DArray && a.shape.length === 2 ? ' (use qr(a) for a rectangular matrix)' : ''}`,
    );
  }
  if (a.shape[0] === 0) throw new ArgumentError(`${what}: a is empty: ${describe(a)}`);
  return a.shape[0];
}

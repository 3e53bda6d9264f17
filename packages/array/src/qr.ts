import { type AbstractScope, ArgumentError, type DTask } from '@dtask/core';
import { describeValue } from '@dtask/core/plugin';
import { In, InOut } from '@dtask/datadeps';
import { Blocks } from './blocks.js';
import { caqrFactor } from './caqr.js';
import { caqrApplyBlockComplex, caqrSolveBlockComplex } from './caqr-complex-kernels.js';
import { caqrApplyBlock, caqrSolveBlock, caqrSteps } from './caqr-kernels.js';
import { copyto } from './copyto.js';
import type { Collected } from './darray.js';
import { DArray } from './darray.js';
import { isComplex } from './dtype.js';
import { DtypeError, requireReal } from './dtype-error.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { type SpawnFn, spawnerOf } from './placement.js';
import { qrApplyBlock } from './qr-apply-kernel.js';
import {
  qrApplyBlockComplex,
  qrPartComplex,
  qrRankInfoComplex,
  qrSolveBlockComplex,
  qrWorkMatrixComplex,
} from './qr-complex-kernels.js';
import { geqrtComplex, larfbComplex } from './qr-complex-tiles.js';
import { type QRLayout, qrPart, qrRankInfo, qrSolveBlock, qrWorkMatrix } from './qr-kernels.js';
import { geqrt, larfb } from './qr-tiles.js';
import { SingularError } from './singular-error.js';
import { type Matrix, runTiled } from './tiled-run.js';

/** Options of `qr`. */
export interface QROptions {
  /** The side of the tiles datadeps works on; default: the smaller block size of the array. */
  tile?: number;
  /** Where the matrix is assembled, and so factored; default: where the scheduler puts it. */
  scope?: AbstractScope;
  /**
   * Dagger's `p`: the number of domains of communication-avoiding QR (CAQR, Dagger's
   * `qr!(A; p)`). The tile rows are cut into `p` domains of consecutive rows that are factored
   * in parallel (a tile step at a time) and then merged pairwise up a binary tree; `p` must
   * divide the number of tile rows. Default 1: flat QR by column panels.
   */
  p?: number;
}

/** Each factorization's working matrix (read by `qrInPlace`). */
const WORK = new WeakMap<QR, DTask<Matrix>>();

/** The working matrix of `f` (packed `R` and reflectors in its top-left `m × n`, padded). */
export function qrWork(f: QR): DTask<Matrix> {
  return WORK.get(f) as DTask<Matrix>;
}

/**
 * A QR factorization `A = Q·R` of an `m × n` matrix (Julia's `qr(A)`, as Dagger's tests use
 * it): `Q` (`m × k`, `k = min(m, n)`, orthonormal columns: Julia's `Matrix(F.Q)`) and `R`
 * (`k × n`, upper triangular), `DArray`s with `A`'s block sizes.
 */
export class QR {
  /** The `m × k` factor with orthonormal columns (Julia's `Matrix(F.Q)`). */
  readonly Q: DArray;
  /** The `k × n` upper triangular factor (Julia's `F.R`). */
  readonly R: DArray;
  /** 0, or the 1-based index of the first exactly zero diagonal element of `R`. */
  readonly info: number;
  readonly #work: DTask<Matrix>;
  readonly #layout: QRLayout;

  /** Made by `qr`. */
  constructor(work: DTask<Matrix>, layout: QRLayout, q: DArray, r: DArray, info: number) {
    this.#work = work;
    WORK.set(this, work);
    this.#layout = layout;
    this.Q = q;
    this.R = r;
    this.info = info;
  }

  /**
   * Julia's `lmul!(F.Q, B)` (with `adjoint`, `lmul!(F.Q', B)`; Dagger's `pormqr!('L', …)`):
   * `b ← Q·b` (or `Qᵀ·b`; of a complex `A`, `Qᴴ·b`) in place, with `Q` the full `m × m`
   * orthogonal (unitary) factor (`F.Q` is its first `min(m, n)` columns). A complex `A`'s `b`
   * must be complex (a plain one: interleaved re, im pairs, twice the numbers). `b` is a `DArray` or view with `A`'s `m` rows (a vector or a
   * matrix: one task per column block, written as `copyto` writes) or a caller's `{ data,
   * shape }` or `Float64Array` (written in place). Resolves to `b`.
   */
  lmulQ<B extends DArray | Collected | Float64Array>(
    b: B,
    options?: { adjoint?: boolean },
  ): Promise<B> {
    return this.#mulQ(b, options?.adjoint ?? false, false, 'F.lmulQ(b)');
  }

  /**
   * Julia's `rmul!(B, F.Q)` (with `adjoint`, `rmul!(B, F.Q')`; Dagger's `pormqr!('R', …)`):
   * `b ← b·Q` (or `b·Qᵀ`) in place, `b` a 2-D `DArray`, view or `{ data, shape }` with `A`'s `m`
   * columns (one task per row block). Resolves to `b`.
   */
  rmulQ<B extends DArray | Collected>(b: B, options?: { adjoint?: boolean }): Promise<B> {
    return this.#mulQ(b, options?.adjoint ?? false, true, 'F.rmulQ(b)');
  }

  async #mulQ<B>(b: B, adjoint: boolean, right: boolean, what: string): Promise<B> {
    const { m } = this.#layout;
    const complex = isComplex(this.Q.dtype);
    const context = this.Q.context;
    const local = !(b instanceof DArray);
    const given = b as unknown as Collected | Float64Array;
    // A complex Q's plain b holds interleaved re, im pairs: 2 numbers an element.
    const width = complex ? 2 : 1;
    const plain =
      given instanceof Float64Array
        ? { data: given, shape: [given.length / width] }
        : (given as Collected | undefined);
    if (local && !(plain?.data instanceof Float64Array && Array.isArray(plain.shape))) {
      throw new ArgumentError(
        `${what}: b must be a DArray, a { data, shape } with Float64Array data or a Float64Array; got ${describeValue(b)}`,
      );
    }
    if (local && complex) {
      const count = (plain as Collected).shape.reduce((p, s) => p * s, 1);
      if ((plain as Collected).data.length !== 2 * count) {
        throw new ArgumentError(
          `${what}: the product with a complex Q is complex: give b's data as ${2 * count} interleaved re, im numbers; got ${(plain as Collected).data.length}`,
        );
      }
    }
    const d = local
      ? DArray.from(plain as Collected, new Blocks(...(plain as Collected).shape), {
          context,
          dtype: complex ? 'complex128' : 'float64',
        })
      : (b as DArray);
    if (complex && !isComplex(d.dtype)) {
      throw new DtypeError(
        right ? 'rmulQ' : 'lmulQ',
        d.dtype,
        `${what}: the product with a complex Q is complex and cannot be written into a ${d.dtype} b; make b complex first with complex(b)`,
      );
    }
    if (!complex)
      requireReal(
        right ? 'rmulQ' : 'lmulQ',
        d,
        what,
        'a complex b needs the QR of a complex matrix: qr(complex(a))',
      );
    const fits = right
      ? d.shape.length === 2 && d.shape[1] === m
      : (d.shape.length === 1 || d.shape.length === 2) && d.shape[0] === m;
    if (typeof adjoint !== 'boolean' || !fits) {
      throw new ArgumentError(
        `${what}: b must have A's ${m} ${right ? 'columns (2-D)' : 'rows (a vector or a matrix)'} and adjoint must be a boolean; got ${describe(d)}`,
      );
    }
    const spawn = spawnerOf(d.context);
    const [r0, c0] = [d.blocks.sizes[0], d.blocks.sizes[1]];
    const blocks = right
      ? new Blocks(r0, m)
      : d.shape.length === 1
        ? new Blocks(m)
        : new Blocks(m, c0);
    const whole = d.reblock(blocks);
    const layout = this.#layout;
    const chunks = whole.chunks.map((c) =>
      complex
        ? spawn(
            layout.steps ? caqrApplyBlockComplex : qrApplyBlockComplex,
            this.#work,
            c,
            layout,
            adjoint,
            right,
            true,
          )
        : spawn(
            layout.steps ? caqrApplyBlock : qrApplyBlock,
            this.#work,
            c,
            layout,
            adjoint,
            right,
          ),
    );
    const dtype = complex ? 'complex128' : 'float64';
    const value = new DArray(d.shape, blocks, dtype, chunks as DTask<Block>[], d.context);
    if (!local) {
      copyto(d, value);
      return b;
    }
    (plain as Collected).data.set((await value.collect()).data);
    return b;
  }

  /**
   * The least-squares solution (Julia's `F \ b` for `m ≥ n`): `x` minimizing `‖A·x − b‖`, `b`
   * a `DArray` with `m` rows (vector or matrix; the result has `n` rows and `b`'s block
   * sizes) or a plain array of `m` numbers (a `Float64Array` back). One task per column block
   * of `b`. `ArgumentError` for `m < n` (an underdetermined system) or a `b` that does not
   * fit; `SingularError` when `R` has a zero on its diagonal (`A` lacks full column rank).
   */
  solve(b: DArray): Promise<DArray>;
  solve(b: ArrayLike<number>): Promise<Float64Array>;
  async solve(b: DArray | ArrayLike<number>): Promise<DArray | Float64Array> {
    const { m, n } = this.#layout;
    if (m < n) {
      throw new ArgumentError(
        `F.solve(b): A is ${m}×${n}, wider than tall: an underdetermined system has no unique least-squares solution here; solve with more rows than columns`,
      );
    }
    if (this.info > 0) {
      throw new SingularError(
        this.info,
        `F.solve(b): R's diagonal element ${this.info} is zero: A lacks full column rank`,
      );
    }
    const complex = isComplex(this.Q.dtype);
    if (!(b instanceof DArray)) {
      const pairs = complex && b !== null && typeof b === 'object' && b.length === 2 * m;
      if (b === null || typeof b !== 'object' || (b.length !== m && !pairs)) {
        throw new ArgumentError(
          `F.solve(b): b must be a DArray or an array of ${m} numbers (A's rows${complex ? `; or ${2 * m}: interleaved re, im pairs` : ''}); got ${describeValue(b)}`,
        );
      }
      const dtype = pairs ? ('complex128' as const) : ('float64' as const);
      const x = await this.solve(
        DArray.from(Float64Array.from(b), new Blocks(m), { context: this.Q.context, dtype }),
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
    if (!complex) {
      requireReal(
        'solve',
        b,
        'F.solve(b)',
        'a complex b needs the QR of a complex matrix: qr(complex(a))',
      );
    }
    const chunks = whole.chunks.map((c) =>
      complex
        ? spawn(
            this.#layout.steps ? caqrSolveBlockComplex : qrSolveBlockComplex,
            this.#work,
            c,
            this.#layout,
            isComplex(b.dtype),
          )
        : spawn(this.#layout.steps ? caqrSolveBlock : qrSolveBlock, this.#work, c, this.#layout),
    );
    const shape = vector ? [n] : [n, b.shape[1]];
    const blocks = vector ? new Blocks(n) : new Blocks(n, b.blocks.sizes[1]);
    const sizes = b.blocks.sizes.map((s, d) => Math.min(s, Math.max(shape[d], 1)));
    const dtype = complex ? 'complex128' : 'float64';
    return new DArray(shape, blocks, dtype, chunks, b.context).reblock(new Blocks(...sizes));
  }
}

/**
 * Julia's (and Dagger's) `qr(A)` of a 2-D `DArray` of any shape: blocked Householder QR
 * through datadeps, as `cholesky` and `lu` are. A task assembles the matrix (zero-padded to a
 * multiple of the tile) in a `SharedArrayBuffer`; for each column of tiles one task reduces
 * the panel (`geqrt`: its reflectors and their compact WY factor `T`) and one task per column
 * block to its right applies them (`larfb`); then `Q` is formed by applying the panels'
 * reflectors, last to first, to `[I; 0]`, one task per column block of `Q`. On this process's
 * threads the tasks share the matrix; in a worker process they run where it is.
 *
 * A complex128 or complex64 `A` is factored the same way by complex tile kernels (`zgeqrt`,
 * `zlarfb` in plain JavaScript, no SIMD): complex128 `Q` (unitary columns) and `R` (a real
 * diagonal, LAPACK's signs); `lmulQ`/`rmulQ` apply the unitary `Q` (`adjoint`: `Qᴴ`) to a
 * complex `b` (a plain `b` as interleaved re, im pairs).
 *
 * With `{ p }` > 1, communication-avoiding QR instead (Dagger's `qr!(A; p)`: `caqr.ts`), a task
 * per tile step (a complex `A` by complex tile steps: Householder reflectors `I − τ·v·vᴴ`, `R`
 * with a real diagonal as LAPACK's zgeqrf gives it). `ArgumentError` for a `p` that is not a
 * positive integer dividing the tile rows.
 */
export function qr(a: DArray, options: QROptions = {}): Promise<QR> {
  return factorQr(a, options, false);
}

/**
 * `qr` by tile steps always (Dagger's `geqrf!` for `p = 1`: flat tile QR, a `geqrt` per
 * diagonal tile and a `tsqrt` per tile below it; `cageqrf!` for `p > 1`).
 */
export function qrTiles(a: DArray, options: QROptions = {}): Promise<QR> {
  return factorQr(a, options, true);
}

async function factorQr(a: DArray, options: QROptions, tiles: boolean): Promise<QR> {
  if (!(a instanceof DArray) || a.shape.length !== 2) {
    throw new ArgumentError(
      `qr(a): a must be a 2-D DArray; got ${a instanceof DArray ? describe(a) : describeValue(a)}`,
    );
  }
  const [m, n] = a.shape;
  if (m === 0 || n === 0) throw new ArgumentError(`qr(a): a is empty: ${describe(a)}`);
  const t = options.tile ?? Math.min(...a.blocks.sizes, Math.max(m, n));
  if (!Number.isInteger(t) || t < 1) {
    throw new ArgumentError(`qr(a, { tile }): tile must be a positive integer; got ${t}`);
  }
  const k = Math.min(m, n);
  const up = (x: number) => Math.ceil(x / t) * t;
  const layout: QRLayout = { m, n, k, t, mp: up(m), np: up(n), kp: up(k) };
  const p = checkDomains(options.p, layout.mp / t);
  const spawn = spawnerOf(a.context);
  const whole = a.reblock(new Blocks(m, n)).chunks[0];
  const where = options.scope ? [{ scope: options.scope }] : [];
  const complex = isComplex(a.dtype);
  // Each resolves to { work } (a DTask is thenable: returned bare, awaiting would unwrap it).
  const { work } =
    p > 1 || tiles
      ? await caqrFactor(spawn, whole, withSteps(layout, p), where, complex)
      : await flatFactor(spawn, whole, layout, where, complex);
  const rankInfo = complex ? qrRankInfoComplex : qrRankInfo;
  const info = (await spawn(rankInfo, work, k)) as unknown as number;
  const dtype = complex ? 'complex128' : 'float64';
  const part = (rows: number, cols: number, column: number, upper: boolean) => {
    const chunk = spawn(
      complex ? qrPartComplex : qrPart,
      work,
      rows,
      cols,
      column,
      upper,
    ) as DTask<Block>;
    const sizes = [Math.min(a.blocks.sizes[0], rows), Math.min(a.blocks.sizes[1], cols)];
    return new DArray([rows, cols], new Blocks(rows, cols), dtype, [chunk], a.context).reblock(
      new Blocks(...sizes),
    );
  };
  const { np } = layout;
  return new QR(work, layout, part(m, k, np, false), part(k, n, 0, true), info);
}

/** `p` checked: a positive integer dividing the `mt` tile rows (default 1). */
function checkDomains(p: number | undefined, mt: number): number {
  if (p === undefined) return 1;
  if (!Number.isInteger(p) || p < 1) {
    throw new ArgumentError(`qr(a, { p }): p must be a positive integer; got ${describeValue(p)}`);
  }
  if (mt % p !== 0) {
    throw new ArgumentError(
      `qr(a, { p }): p = ${p} domains must divide the ${mt} tile rows (CAQR gives each domain the same number of tile rows); choose p among the divisors of ${mt}, or a tile that makes the rows a multiple of p tiles`,
    );
  }
  return p;
}

/** `layout` (mutated) with CAQR's tile rows, domains and steps. */
function withSteps(layout: QRLayout, p: number): QRLayout {
  layout.mt = layout.mp / layout.t;
  layout.p = p;
  layout.steps = caqrSteps(layout.mt, layout.np / layout.t, p);
  return layout;
}

/**
 * Flat QR by column panels (`geqrt` and `larfb` tasks, complex ones for a complex matrix), then
 * `Q`; resolves to `{ work }`, the working matrix's task.
 */
async function flatFactor(
  spawn: SpawnFn,
  whole: DTask<Block>,
  layout: QRLayout,
  where: { scope: AbstractScope }[],
  complex: boolean,
): Promise<{ work: DTask<Matrix> }> {
  const { t, mp, np, kp } = layout;
  const [assemble, reduce, apply] = complex
    ? [qrWorkMatrixComplex, geqrtComplex, larfbComplex]
    : [qrWorkMatrix, geqrt, larfb];
  const r = complex ? 2 : 1;
  const work = spawn(...where, assemble, whole, layout) as unknown as DTask<Matrix>;
  const panels = Math.min(mp, np) / t;
  const span = (j: number) => [j * t, (j + 1) * t] as const;
  const qcols = (j: number) => [np + j * t, np + (j + 1) * t] as const;
  const tRows = [mp, mp + t] as const;
  await runTiled(spawn, work, ({ at: atReal, spawn: tileTask }) => {
    // A complex matrix's row i is real rows 2i and 2i + 1.
    const at = (rows: readonly [number, number], cols: readonly [number, number]) =>
      atReal([r * rows[0], r * rows[1]], cols);
    for (let p = 0; p < panels; p++) {
      const rows = [p * t, mp] as const;
      const v = at(rows, span(p));
      const tm = at(tRows, span(p));
      tileTask('geqrt', 2 * (panels - p) + 1, reduce, InOut(v), InOut(tm));
      for (let j = p + 1; j < np / t; j++) {
        tileTask('larfb', 2 * (np / t - j), apply, In(v), In(tm), InOut(at(rows, span(j))), true);
      }
    }
    // Q = H₀·H₁·…·[I; 0]: the last panel's reflectors first; a column block j of [I; 0] is
    // untouched by the panels right of it.
    for (let p = panels - 1; p >= 0; p--) {
      const rows = [p * t, mp] as const;
      for (let j = p; j < kp / t; j++) {
        tileTask(
          'larfb',
          0,
          apply,
          In(at(rows, span(p))),
          In(at(tRows, span(p))),
          InOut(at(rows, qcols(j))),
          false,
        );
      }
    }
  });
  return { work };
}

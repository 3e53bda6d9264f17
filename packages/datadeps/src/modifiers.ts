import { ArgumentError } from '@dtask/core';

/** The kinds of aliasing modifier (Julia's wrapper types of seed 002). */
export type ModifierKind =
  | 'upperTriangular'
  | 'lowerTriangular'
  | 'unitUpperTriangular'
  | 'unitLowerTriangular'
  | 'diagonal'
  | 'bidiagonal'
  | 'tridiagonal';

/**
 * An aliasing modifier for `Deps(x, InOut(modifier))`: says which elements of a 2-D matrix a
 * task touches. Row `i` of an `n × m` matrix covers columns `[first(i), last(i))`; the
 * exported constants below are the only instances.
 */
export class AliasModifier {
  /** @internal */
  constructor(
    /** Which part of the matrix. */
    readonly kind: ModifierKind,
    private readonly lo: number,
    private readonly hi: number,
  ) {}

  /** First column of row `i` it covers (may be negative; clip to the matrix). */
  first(i: number): number {
    return i + this.lo;
  }

  /** One past the last column of row `i` it covers. */
  last(i: number): number {
    return i + this.hi;
  }

  /** The range of `j − i` it covers: `[lo, hi)`. */
  get band(): { lo: number; hi: number } {
    return { lo: this.lo, hi: this.hi };
  }

  /** True when element `(i, j)` is covered. */
  covers(i: number, j: number): boolean {
    return j >= i + this.lo && j < i + this.hi;
  }

  /** The modifier's name, as written in code. */
  toString(): string {
    return this.kind;
  }
}

const BIG = Number.MAX_SAFE_INTEGER;

/** Upper triangle including the diagonal (`j ≥ i`), Julia's `UpperTriangular`. */
export const upperTriangular: AliasModifier = new AliasModifier('upperTriangular', 0, BIG);
/** Lower triangle including the diagonal (`j ≤ i`), Julia's `LowerTriangular`. */
export const lowerTriangular: AliasModifier = new AliasModifier('lowerTriangular', -BIG, 1);
/** Strict upper triangle (`j > i`; the unit diagonal is implied, not stored). */
export const unitUpperTriangular: AliasModifier = new AliasModifier('unitUpperTriangular', 1, BIG);
/** Strict lower triangle (`j < i`; the unit diagonal is implied, not stored). */
export const unitLowerTriangular: AliasModifier = new AliasModifier('unitLowerTriangular', -BIG, 0);
/** The main diagonal (`j = i`), Julia's `Diagonal`. */
export const diagonal: AliasModifier = new AliasModifier('diagonal', 0, 1);
/**
 * The main diagonal and the superdiagonal (`i ≤ j ≤ i + 1`): an upper `Bidiagonal`, Julia's
 * default. For a lower bidiagonal use `tridiagonal` (a superset, so ordering stays correct).
 */
export const bidiagonal: AliasModifier = new AliasModifier('bidiagonal', 0, 2);
/** The main, super- and subdiagonal (`|i − j| ≤ 1`), Julia's `Tridiagonal`/`SymTridiagonal`. */
export const tridiagonal: AliasModifier = new AliasModifier('tridiagonal', -1, 2);

/** True for one of the modifier constants. */
export function isAliasModifier(x: unknown): x is AliasModifier {
  return x instanceof AliasModifier;
}

/** Checks what may follow the data in `Deps(x, …)`: a modifier or a field name. */
export function checkModifier(m: unknown): asserts m is AliasModifier | string {
  if (typeof m === 'string' || isAliasModifier(m)) return;
  throw new ArgumentError(
    `Deps(x, …): ${String(m)} is not an aliasing modifier. Use In/Out/InOut of upperTriangular, ` +
      'lowerTriangular, unitUpperTriangular, unitLowerTriangular, diagonal, bidiagonal, ' +
      "tridiagonal, or a field name such as InOut('value')",
  );
}

import { ArgumentError } from '@dtask/core';
import { Blocks, lengthOf } from './blocks.js';
import { requireReal } from './dtype-error.js';
import { makeParts } from './make-parts.js';
import { type ArrayData, describe, type Parts } from './parts.js';
import { spawnerOf } from './placement.js';
import { type ReduceOptions, reduceAll, reduceParts } from './reductions.js';

type Op = 'sum' | 'prod' | 'min' | 'max' | 'fn';

/** A reduction along dimensions, for the class to wrap: its parts, then `each` on every element. */
export interface ReducedParts {
  /** The reduced array's parts. */
  parts: Parts;
  /** `x ↦ op(init, x)`, mapped over the result when `init` is given. */
  each?: (x: number) => number;
}

/**
 * A reduction of `a` (`da.sum/mean/min/max/reduce`, `prod`): the whole array (a number) or along
 * `options.dims` (the parts of a Float64 array). `options.init` (Julia's `init`) is combined with the
 * result once (`init + Σ`, `init · Π`, `min(init, …)`, `f(init, …)`); it is the result of a reduction over
 * no elements, which without it is an `ArgumentError` naming `init`.
 */
export function reduceArray(
  a: ArrayData,
  op: Op,
  options: ReduceOptions | undefined,
  what: string,
  extra: { mean?: boolean; f?: unknown } = {},
): Promise<number> | ReducedParts {
  requireReal(
    what,
    a,
    `da.${what}()`,
    what === 'sum'
      ? 'complexSum(da) sums a complex array ({ re, im }); real(da) and imag(da) reduce the parts'
      : undefined,
  );
  const init = options?.init;
  if (init !== undefined && (typeof init !== 'number' || extra.mean === true)) {
    throw new ArgumentError(
      `da.${what}({ init }): init must be a number${extra.mean === true ? ' and mean takes none (the mean of nothing has no value)' : ''}; got ${String(init)}`,
    );
  }
  const spawn = spawnerOf(a.context);
  const dims = options?.dims;
  if (init !== undefined && lengthOf(a.shape) === 0) return overNothing(a, dims, init, what);
  if (dims === undefined) {
    const r = reduceAll(a, spawn, op, what, extra);
    return init === undefined ? r : r.then((v) => combine(op, extra.f, init)(v));
  }
  const parts = reduceParts(a, spawn, op, options, what, extra);
  return init === undefined ? { parts } : { parts, each: combine(op, extra.f, init) };
}

/** `x ↦ op(init, x)` as a self-contained function (it travels as source text). */
function combine(op: Op, f: unknown, init: number): (x: number) => number {
  // `String(-0)` is '0': the sign of a negative zero is written out, as Julia keeps it.
  const v = Object.is(init, -0)
    ? '-0'
    : Number.isFinite(init)
      ? String(init)
      : init > 0
        ? 'Infinity'
        : init < 0
          ? '-Infinity'
          : 'NaN';
  const body =
    op === 'sum'
      ? `x + ${v}`
      : op === 'prod'
        ? `${v} * x`
        : op === 'min'
          ? `Math.min(${v}, x)`
          : op === 'max'
            ? `Math.max(${v}, x)`
            : `(${String(f)})(${v}, x)`;
  return new Function('x', `return ${body};`) as (x: number) => number;
}

/** The reduction of an empty array with `init`: `init`, or along `dims` an array of it. */
function overNothing(
  a: ArrayData,
  given: number | number[] | undefined,
  init: number,
  what: string,
): Promise<number> | ReducedParts {
  if (given === undefined) return Promise.resolve(init);
  const dims = typeof given === 'number' ? [given] : given;
  if (
    !Array.isArray(dims) ||
    dims.some((d) => !Number.isInteger(d) || d < 0 || d >= a.shape.length)
  ) {
    throw new ArgumentError(
      `da.${what}({ dims }): dims must be a dimension or a list of dimensions 0…${a.shape.length - 1} of ${describe(a)}; got ${JSON.stringify(given)}`,
    );
  }
  const shape = a.shape.map((n, d) => (dims.includes(d) ? 1 : n));
  const blocks = new Blocks(...a.blocks.sizes.map((b, d) => (dims.includes(d) ? 1 : b)));
  return { parts: makeParts(shape, blocks, 'fill', init, { context: a.context }, 'DArray.fill') };
}

import { ArgumentError } from '@dtask/core';
import { Blocks, lengthOf } from './blocks.js';
import { DArray } from './darray.js';
import { requireReal } from './dtype-error.js';
import { describe } from './parts.js';
import { spawnerOf } from './placement.js';
import { type ReduceOptions, reduceAll, reduceParts } from './reductions.js';

type Op = 'sum' | 'min' | 'max' | 'fn';

/**
 * A reduction of `a` (`da.sum/mean/min/max/reduce`): the whole array (a number) or along
 * `options.dims` (a Float64 `DArray`). `options.init` (Julia's `init`) is combined with the
 * result once (`init + Σ`, `min(init, …)`, `f(init, …)`); it is the result of a reduction over
 * no elements, which without it is an `ArgumentError` naming `init`.
 */
export function reduceArray(
  a: DArray,
  op: Op,
  options: ReduceOptions | undefined,
  what: string,
  extra: { mean?: boolean; f?: unknown } = {},
): Promise<number> | DArray {
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
  const p = reduceParts(a, spawn, op, options, what, extra);
  const result = new DArray(p.shape, p.blocks, p.dtype, p.chunks, a.context);
  return init === undefined ? result : result.map(combine(op, extra.f, init));
}

/** `x ↦ op(init, x)` as a self-contained function (it travels as source text). */
function combine(op: Op, f: unknown, init: number): (x: number) => number {
  const v = Number.isFinite(init)
    ? String(init)
    : init > 0
      ? 'Infinity'
      : init < 0
        ? '-Infinity'
        : 'NaN';
  const body =
    op === 'sum'
      ? `x + ${v}`
      : op === 'min'
        ? `Math.min(${v}, x)`
        : op === 'max'
          ? `Math.max(${v}, x)`
          : `(${String(f)})(${v}, x)`;
  return new Function('x', `return ${body};`) as (x: number) => number;
}

/** The reduction of an empty array with `init`: `init`, or along `dims` an array of it. */
function overNothing(
  a: DArray,
  given: number | number[] | undefined,
  init: number,
  what: string,
): Promise<number> | DArray {
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
  return DArray.fill(shape, blocks, init, { context: a.context });
}

import { ArgumentError, type DTask } from '@dtask/core';
import { Blocks, lengthOf } from './blocks.js';
import { elementAt, writeBlock } from './copy-kernels.js';
import { type CopySide, copyPlanOf } from './copy-plan.js';
import { DArray } from './darray.js';
import { distributeParts } from './distribute-parts.js';
import { type Complex, isComplex, widthOf } from './dtype.js';
import { requireComplex, requireReal } from './dtype-error.js';
import { internals } from './internals.js';
import type { Block } from './kernels.js';
import { describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';
import { compose, keptShape, picksOf, type Selector, wholeOf } from './selectors.js';
import type { ViewOf } from './view-chunks.js';

/** What can be written into a selection: a number (every element), an array, or a caller's array. */
export type Source =
  | number
  | Complex
  | DArray
  | ArrayLike<number>
  | { readonly data: ArrayLike<number>; readonly shape: readonly number[] };

/** `a`'s root array and the picks over it of `selectors` (over `a`'s own dimensions). */
function rootOf(a: DArray, selectors: readonly Selector[] | undefined, what: string): ViewOf {
  const own =
    selectors === undefined ? a.shape.map(wholeOf) : picksOf(a.shape, selectors, what, describe(a));
  const of = internals().viewOf(a);
  if (of === undefined) return { parent: a, picks: own };
  let k = 0;
  return { parent: of.parent, picks: of.picks.map((p) => (p.drop ? p : compose(p, own[k++]))) };
}

function sideOf(of: ViewOf): CopySide {
  return { shape: of.parent.shape, blocks: of.parent.blocks, picks: of.picks };
}

/**
 * A view of `a` (Dagger's `view(A, inds...)`): a `DArray` over the elements `selectors` pick,
 * blocked as `a` is along the dimensions it keeps. Nothing runs until its chunks are used; a
 * write into it goes to its parent.
 */
export function viewOf(a: DArray, selectors: readonly Selector[]): DArray {
  const of = rootOf(a, selectors, 'da.view(...selectors)');
  const kept = of.picks.map((p, d) => (p.drop ? -1 : d)).filter((d) => d >= 0);
  const shape = keptShape(of.picks);
  return internals().makeView(of, shape, new Blocks(...kept.map((d) => of.parent.blocks.sizes[d])));
}

/** A copy of the elements `selectors` pick, as its own `DArray` (Dagger's `A[inds...]`). */
export function sliceOf(a: DArray, selectors: readonly Selector[]): DArray {
  const v = viewOf(a, selectors);
  return new DArray(v.shape, v.blocks, v.dtype, v.chunks, v.context);
}

/** The element at `index` (one per dimension, or one column-major linear index). */
export function elementOf(
  a: DArray,
  index: readonly number[],
  kernel: Function = elementAt,
): Promise<number> {
  const what = `da.get(...index) of ${describe(a)}`;
  if (kernel === elementAt) {
    requireReal('get', a, what, 'read an element of a complex array with complexAt(da, ...index)');
  }
  const full = linear(a.shape, index, what);
  const of = rootOf(a, full, what);
  const parent = of.parent;
  const at = of.picks.map((p) => (p.kind === 'range' ? p.start : p.indices[0]));
  const g = at.map((i, d) => Math.floor(i / parent.blocks.sizes[d]));
  const local = at.map((i, d) => i - g[d] * parent.blocks.sizes[d]);
  const chunk = parent.chunk(...g);
  const spawn = spawnerOf(parent.context) as unknown as (...x: unknown[]) => DTask<number>;
  return Promise.resolve(spawn(ownerOf(chunk, 0), kernel, chunk, local));
}

/** `index` as one index per dimension (a single one is column-major linear), checked. */
function linear(shape: readonly number[], index: readonly number[], what: string): number[] {
  const n = lengthOf(shape);
  if (index.length === 1 && shape.length !== 1) {
    const [k] = index;
    if (!Number.isInteger(k) || k < 0 || k >= n) {
      throw new ArgumentError(`${what}: linear index ${k} is out of bounds 0…${n - 1}`);
    }
    let r = k;
    return shape.map((s) => {
      const i = r % s;
      r = Math.floor(r / s);
      return i;
    });
  }
  if (index.length !== shape.length || index.some((i) => typeof i !== 'number')) {
    throw new ArgumentError(
      `${what}: give one integer index per dimension (${shape.length}), or one column-major linear index; got (${index.join(', ')})`,
    );
  }
  return [...index];
}

/**
 * Write `value` into the elements `selectors` pick of `a` (Dagger's `A[inds...] = value` and
 * `copyto!`): the blocks it touches get new tasks, each copying its old block and the source's
 * pieces where the old block lives; arrays made from `a` before keep the old values.
 */
export function writeInto(
  a: DArray,
  selectors: readonly Selector[] | number | undefined,
  value: Source,
  what: string,
): void {
  const sel = typeof selectors === 'number' ? linear(a.shape, [selectors], what) : selectors;
  const target = rootOf(a, sel, what);
  const parent = target.parent;
  let src: ViewOf | undefined;
  const fill = fillOf(value, parent, what);
  if (fill !== null) src = undefined;
  else if (value instanceof DArray) {
    if (isComplex(parent.dtype) !== isComplex(value.dtype)) {
      requireComplex('copyto', isComplex(parent.dtype) ? value : parent, what);
    }
    src = rootOf(value, undefined, what);
  } else src = rootOf(fromCaller(value, parent, what), undefined, what);
  const plan = copyPlanOf(sideOf(target), src === undefined ? undefined : sideOf(src), what);
  const spawn = spawnerOf(parent.context);
  const old = parent.chunks;
  const from = src?.parent.chunks ?? [];
  const updates = new Map<number, DTask<Block>>();
  for (const b of plan) {
    updates.set(
      b.flat,
      spawn(
        ownerOf(old[b.flat], 5),
        writeBlock,
        parent.dtype,
        b.shape,
        b.covered,
        b.pieces,
        fill,
        old[b.flat],
        ...b.sources.map((k) => from[k]),
      ),
    );
  }
  internals().write(parent, updates);
}

/**
 * The value a write fills with: a number (a complex element takes it as its real part), or a
 * `{ re, im }` for a complex array (`[re, im]`); null for an array to copy.
 */
function fillOf(value: unknown, parent: DArray, what: string): number | number[] | null {
  if (typeof value === 'number') return value;
  if (value instanceof DArray || value === null || typeof value !== 'object') return null;
  const c = value as Partial<Complex>;
  if (typeof c.re !== 'number' || typeof c.im !== 'number') return null;
  requireComplex('set', parent, `${what} with { re, im }`);
  return [c.re, c.im];
}

/** A caller's array (`{ data, shape }` or 1-D) as a one-block `DArray` of `like`'s dtype and context. */
function fromCaller(value: unknown, like: DArray, what: string): DArray {
  if (value === null || typeof value !== 'object') {
    throw new ArgumentError(
      `${what}: the value must be a number, a DArray, an array or typed array, or { data, shape }; got ${String(value)}`,
    );
  }
  const whole =
    'shape' in value && 'data' in value
      ? (value as { data: ArrayLike<number>; shape: readonly number[] })
      : {
          data: value as ArrayLike<number>,
          // A complex array takes (re, im) pairs.
          shape: [(value as ArrayLike<number>).length / widthOf(like.dtype)],
        };
  if (!Array.isArray(whole.shape) || typeof whole.data?.length !== 'number') {
    throw new ArgumentError(`${what}: the value's { data, shape } must be an array and a shape`);
  }
  const blocks = new Blocks(...whole.shape.map((n) => Math.max(n, 1)));
  const options = { dtype: like.dtype, context: like.context };
  const p = distributeParts(whole.data, whole.shape, blocks, options, what);
  return new DArray(whole.shape, p.blocks, p.dtype, p.chunks, like.context);
}

/**
 * Dagger's `copyto!(dest, src)`: `src`'s elements into `dest` (both may be views, blocked
 * differently), returning `dest`. Their shapes must agree once dimensions of size 1 are left
 * out; `dest`'s blocks that the copy touches get new tasks (see `writeInto`).
 */
export function copyto(dest: DArray, src: Source): DArray {
  if (!(dest instanceof DArray)) {
    throw new ArgumentError(
      `copyto(dest, src): dest must be a DArray or a view of one (da.view(...)); got ${String(dest)}`,
    );
  }
  writeInto(dest, undefined, src, `copyto(dest, src) into ${describe(dest)}`);
  return dest;
}

/**
 * Throws `ArgumentError` when `a` is a view: `what` (an operation writing blocks in place, such
 * as `stencilSteps`) would write the view's copies, not its parent.
 */
export function refuseView(a: DArray, what: string): void {
  if (a.parent === undefined) return;
  throw new ArgumentError(
    `${what} is a view (da.view(...)), and this writes blocks in place: pass a DArray of its own (v.slice(':', …) copies a view), then copyto(view, result) to write it back`,
  );
}

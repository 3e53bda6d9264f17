import { ArgumentError, type DTask } from '@dtask/core';
import { Blocks, lengthOf } from './blocks.js';
import { elementAt, writeBlock } from './copy-kernels.js';
import { type CopySide, copyPlanOf } from './copy-plan.js';
import { distributeParts } from './distribute-parts.js';
import { type Complex, isComplex, widthOf } from './dtype.js';
import { requireComplex, requireReal } from './dtype-error.js';
import type { Block } from './kernels.js';
import { type ArrayData, chunkAt, dataOf, describe } from './parts.js';
import { ownerOf, spawnerOf } from './placement.js';
import { compose, keptShape, picksOf, type Selector, wholeOf } from './selectors.js';
import type { ViewOf } from './view-chunks.js';

/** A caller's array to write into a selection: 1-D, or `{ data, shape }` (column-major). */
export type CallerArray =
  | ArrayLike<number>
  | { readonly data: ArrayLike<number>; readonly shape: readonly number[] };

/**
 * `a`'s root array and the picks over it of `selectors` (over `a`'s own dimensions; all of
 * them when undefined); `of` is what `a` is a view of, undefined when it is not a view.
 */
export function rootOf<A extends ArrayData>(
  a: A,
  of: ViewOf<A> | undefined,
  selectors: readonly Selector[] | undefined,
  what: string,
): ViewOf<A> {
  const own =
    selectors === undefined ? a.shape.map(wholeOf) : picksOf(a.shape, selectors, what, describe(a));
  if (of === undefined) return { parent: a, picks: own };
  let k = 0;
  return { parent: of.parent, picks: of.picks.map((p) => (p.drop ? p : compose(p, own[k++]))) };
}

function sideOf(of: ViewOf): CopySide {
  return { shape: of.parent.shape, blocks: of.parent.blocks, picks: of.picks };
}

/**
 * The shape and blocks of a view over the picks of `of` (Dagger's `view(A, inds...)`): blocked
 * as its parent along the dimensions it keeps.
 */
export function viewLayout(of: ViewOf): { shape: number[]; blocks: Blocks } {
  const kept = of.picks.map((p, d) => (p.drop ? -1 : d)).filter((d) => d >= 0);
  const shape = keptShape(of.picks);
  return { shape, blocks: new Blocks(...kept.map((d) => of.parent.blocks.sizes[d])) };
}

/**
 * The element of `a` at `index` (one per dimension, or one column-major linear index), read by
 * `kernel` (a complex element's by `complexAt`'s); `of` is what `a` is a view of, if it is one.
 */
export function elementOf(
  a: ArrayData,
  of: ViewOf | undefined,
  index: readonly number[],
  kernel: Function = elementAt,
): Promise<number> {
  const what = `da.get(...index) of ${describe(a)}`;
  if (kernel === elementAt) {
    requireReal('get', a, what, 'read an element of a complex array with complexAt(da, ...index)');
  }
  const full = linearIndex(a.shape, index, what);
  const { parent, picks } = rootOf(a, of, full, what);
  const at = picks.map((p) => (p.kind === 'range' ? p.start : p.indices[0]));
  const g = at.map((i, d) => Math.floor(i / parent.blocks.sizes[d]));
  const local = at.map((i, d) => i - g[d] * parent.blocks.sizes[d]);
  const chunk = chunkAt(parent, ...g);
  const spawn = spawnerOf(parent.context) as unknown as (...x: unknown[]) => DTask<number>;
  return Promise.resolve(spawn(ownerOf(chunk, 0), kernel, chunk, local));
}

/**
 * `rootOf` for `selectors` as `da.set` takes them: a list, one column-major linear index, or
 * undefined (all of `a`).
 */
export function selectionOf<A extends ArrayData>(
  a: A,
  of: ViewOf<A> | undefined,
  selectors: readonly Selector[] | number | undefined,
  what: string,
): ViewOf<A> {
  const sel = typeof selectors === 'number' ? linearIndex(a.shape, [selectors], what) : selectors;
  return rootOf(a, of, sel, what);
}

/** `index` as one index per dimension (a single one is column-major linear), checked. */
export function linearIndex(
  shape: readonly number[],
  index: readonly number[],
  what: string,
): number[] {
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
 * The new tasks of the blocks of `target.parent` that writing `value` into the elements
 * `target` picks touches, by flat grid index (Dagger's `A[inds...] = value` and `copyto!`):
 * each copies its old block and the source's pieces where the old block lives, so arrays made
 * from the parent before keep the old values. `value` is what `fillOf` gives (a number, or a
 * complex element's `[re, im]`, for every element) or the root and picks of an array.
 */
export function writeTasks(
  target: ViewOf,
  value: number | number[] | ViewOf,
  what: string,
): Map<number, DTask<Block>> {
  const parent = target.parent;
  const fill = typeof value === 'number' || Array.isArray(value) ? value : null;
  const src = fill !== null ? undefined : (value as ViewOf);
  if (src !== undefined && isComplex(parent.dtype) !== isComplex(src.parent.dtype)) {
    requireComplex('copyto', isComplex(parent.dtype) ? src.parent : parent, what);
  }
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
  return updates;
}

/**
 * The value a write fills with: a number (a complex element takes it as its real part), or a
 * `{ re, im }` for a complex array (`[re, im]`); null for an array to copy.
 */
export function fillOf(value: unknown, parent: ArrayData, what: string): number | number[] | null {
  if (typeof value === 'number') return value;
  if (value === null || typeof value !== 'object') return null;
  const c = value as Partial<Complex>;
  if (typeof c.re !== 'number' || typeof c.im !== 'number') return null;
  requireComplex('set', parent, `${what} with { re, im }`);
  return [c.re, c.im];
}

/**
 * A caller's array (`{ data, shape }` or 1-D) as the data of a one-block array of `like`'s
 * dtype and context; `ArgumentError` for anything else.
 */
export function callerArray(value: unknown, like: ArrayData, what: string): ArrayData {
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
  return dataOf({ shape: whole.shape, ...p }, like.context);
}

/**
 * Throws `ArgumentError` when `a` is a view: `what` (an operation writing blocks in place, such
 * as `stencilSteps`) would write the view's copies, not its parent.
 */
export function refuseView(a: { readonly parent?: unknown }, what: string): void {
  if (a.parent === undefined) return;
  throw new ArgumentError(
    `${what} is a view (da.view(...)), and this writes blocks in place: pass a DArray of its own (v.slice(':', …) copies a view), then copyto(view, result) to write it back`,
  );
}

import { ArgumentError } from '@dtask/core';
import type { MemorySpace } from '@dtask/core/plugin';
import { kindOf } from './aliasing.js';
import { type AliasModifier, isAliasModifier } from './modifiers.js';
import { isStridedView, isTypedArray, type StridedView, type TypedArray } from './strided-view.js';

/**
 * What part of the data a move covers: `undefined` for all of it (Julia's `identity`), an
 * aliasing modifier for part of a 2-D view, or a field name.
 */
export type MoveModifier = AliasModifier | string | undefined;

/** A per-type rule for `moveInPlace` (Dagger's `move!` method for one type). */
export type MoveInPlaceRule<T = any> = (
  modifier: MoveModifier,
  fromSpace: MemorySpace | undefined,
  toSpace: MemorySpace | undefined,
  from: T,
  to: T,
) => void;

const KEY = Symbol.for('dtask.datadeps.moveRules');
const rules: Map<Function, MoveInPlaceRule> = ((globalThis as Record<symbol, unknown>)[KEY] ??=
  new Map()) as Map<Function, MoveInPlaceRule>;

/**
 * Teaches `moveInPlace` a type (seed 002's custom `move!`): `rule` copies `from`'s contents into
 * `to` (instances of `type`, or of a subclass without a rule of its own), restricted to
 * `modifier`. `from` is the copy a worker thread wrote: structured cloning drops class
 * prototypes, so it may be a plain object with the same fields. Registering a rule also lets
 * instances of `type` be written by region tasks (`Out`/`InOut`). Returns a remover.
 */
export function registerMoveInPlace<T>(
  type: abstract new (...a: any[]) => T,
  rule: MoveInPlaceRule<T>,
): () => void {
  if (typeof type !== 'function' || typeof rule !== 'function') {
    throw new ArgumentError('registerMoveInPlace(type, rule): type is a class, rule a function');
  }
  const previous = rules.get(type);
  rules.set(type, rule);
  return () => {
    if (previous) rules.set(type, previous);
    else rules.delete(type);
  };
}

/** The registered rule for `x`'s class or its nearest ancestor, if any. */
export function findMoveRule(x: object): MoveInPlaceRule | undefined {
  for (let p = Object.getPrototypeOf(x); p !== null; p = Object.getPrototypeOf(p)) {
    const rule = rules.get(p.constructor);
    if (rule !== undefined) return rule;
  }
  return undefined;
}

/** True when `moveInPlace` knows how to write into `x` (so a task may write it). */
export function canMoveInPlace(x: unknown): boolean {
  if (typeof x !== 'object' || x === null) return false;
  if (ArrayBuffer.isView(x) || x instanceof ArrayBuffer || Array.isArray(x)) return true;
  if (x instanceof Map || x instanceof Set || isStridedView(x)) return true;
  const proto = Object.getPrototypeOf(x);
  return proto === Object.prototype || proto === null || findMoveRule(x) !== undefined;
}

/**
 * Dagger's `move!`: copies the data of `from` (in memory space `fromSpace`) into `to` (in
 * `toSpace`) in place, only the part `modifier` names. Datadeps calls it on the scheduler's
 * thread to write a worker's copy of an `Out`/`InOut` argument back into the caller's object.
 * Built in: typed arrays and `DataView`s (nothing to do from a view of the same
 * `SharedArrayBuffer`; a copy from a worker process is copied), `ArrayBuffer`s, strided views (element by element; modifiers copy only their
 * triangle or band), arrays and plain objects (element by element / field by field, nested
 * objects moved into recursively, so references to them stay valid), `Map`s and `Set`s. Other
 * classes need `registerMoveInPlace`; without a rule this throws `ArgumentError`.
 */
export function moveInPlace(
  modifier: MoveModifier,
  fromSpace: MemorySpace | undefined,
  toSpace: MemorySpace | undefined,
  from: unknown,
  to: unknown,
): void {
  if (from === to || typeof to !== 'object' || to === null) return;
  const rule = findMoveRule(to);
  const proto = Object.getPrototypeOf(to);
  const builtin = proto === Object.prototype || proto === null || Array.isArray(to);
  if (rule !== undefined && !builtin) {
    rule(modifier, fromSpace, toSpace, from, to);
    return;
  }
  if (typeof modifier === 'string') {
    moveField(
      modifier,
      fromSpace,
      toSpace,
      from as Record<string, unknown>,
      to as Record<string, unknown>,
    );
    return;
  }
  if (isAliasModifier(modifier) || isStridedView(to)) {
    moveStrided(
      modifier,
      from as StridedView<TypedArray | unknown[]>,
      to as StridedView<TypedArray | unknown[]>,
    );
    return;
  }
  if (ArrayBuffer.isView(to)) {
    const src = from as ArrayBufferView;
    // The same shared memory (a thread of this process wrote it): nothing to copy. A copy from
    // a worker process arrives in memory of its own, and is copied.
    if (to.buffer instanceof SharedArrayBuffer && src.buffer === to.buffer) return;
    new Uint8Array(to.buffer, to.byteOffset, to.byteLength).set(
      new Uint8Array(src.buffer, src.byteOffset, Math.min(src.byteLength, to.byteLength)),
    );
    return;
  }
  if (to instanceof ArrayBuffer) {
    new Uint8Array(to).set(new Uint8Array(from as ArrayBuffer));
    return;
  }
  if (Array.isArray(to)) {
    const src = from as unknown[];
    for (let i = 0; i < src.length; i++) moveSlot(fromSpace, toSpace, src, to, i);
    to.length = src.length;
    return;
  }
  if (to instanceof Map) {
    to.clear();
    for (const [k, v] of from as Map<unknown, unknown>) to.set(k, v);
    return;
  }
  if (to instanceof Set) {
    to.clear();
    for (const v of from as Set<unknown>) to.add(v);
    return;
  }
  if (builtin) {
    const src = from as Record<string, unknown>;
    const dst = to as Record<string, unknown>;
    for (const key of Object.keys(dst)) if (!(key in src)) delete dst[key];
    for (const key of Object.keys(src)) moveField(key, fromSpace, toSpace, src, dst);
    return;
  }
  throw new ArgumentError(
    `moveInPlace: no rule to write a ${kindOf(to)} in place; call registerMoveInPlace(${kindOf(to)}, rule)`,
  );
}

function moveField(
  key: string,
  fromSpace: MemorySpace | undefined,
  toSpace: MemorySpace | undefined,
  from: Record<string, unknown>,
  to: Record<string, unknown>,
): void {
  moveSlot(fromSpace, toSpace, from, to, key);
}

/** `to[key] = from[key]`, moving into the old value instead when both are objects of one kind. */
function moveSlot(
  fromSpace: MemorySpace | undefined,
  toSpace: MemorySpace | undefined,
  from: any,
  to: any,
  key: string | number,
): void {
  const a = from[key];
  const b = to[key];
  if (
    typeof a === 'object' &&
    a !== null &&
    typeof b === 'object' &&
    b !== null &&
    sameKind(a, b) &&
    canMoveInPlace(b)
  ) {
    moveInPlace(undefined, fromSpace, toSpace, a, b);
  } else to[key] = a;
}

function sameKind(a: object, b: object): boolean {
  if (ArrayBuffer.isView(b))
    return (
      ArrayBuffer.isView(a) && a.byteLength === b.byteLength && a.constructor === b.constructor
    );
  if (Array.isArray(b)) return Array.isArray(a);
  if (isStridedView(b)) return isStridedView(a);
  return !ArrayBuffer.isView(a) && !Array.isArray(a);
}

/** Copies the elements of a strided view (those `modifier` covers) from `from` into `to`. */
function moveStrided(
  modifier: AliasModifier | undefined,
  from: StridedView<TypedArray | unknown[]>,
  to: StridedView<TypedArray | unknown[]>,
): void {
  if (!isStridedView(to) || !isStridedView(from)) {
    throw new ArgumentError(
      `moveInPlace(${String(modifier)}): needs two strided views of one shape`,
    );
  }
  if (
    isTypedArray(to.data) &&
    to.data.buffer instanceof SharedArrayBuffer &&
    isTypedArray(from.data) &&
    from.data.buffer === to.data.buffer
  ) {
    return; // the same shared memory: nothing to copy
  }
  const src = from.data as any;
  const dst = to.data as any;
  const shape = to.shape;
  if (shape.length === 0) {
    dst[to.offset] = src[from.offset];
    return;
  }
  if (shape.length === 1) {
    for (let i = 0; i < shape[0]; i++)
      dst[to.offset + i * to.strides[0]] = src[from.offset + i * from.strides[0]];
    return;
  }
  if (shape.length > 2) {
    if (modifier !== undefined) {
      throw new ArgumentError(
        `moveInPlace(${String(modifier)}): a triangle or band modifier needs a 2-D view; this one has ${shape.length} dimensions`,
      );
    }
    moveStridedN(from, to);
    return;
  }
  const [rows, cols] = shape;
  // Rows of contiguous elements of one typed array kind (a tile): a block copy per row.
  const rowCopy =
    to.strides[1] === 1 &&
    from.strides[1] === 1 &&
    isTypedArray(dst) &&
    isTypedArray(src) &&
    dst.constructor === src.constructor;
  for (let i = 0; i < rows; i++) {
    const j0 = modifier === undefined ? 0 : Math.max(0, modifier.first(i));
    const j1 = modifier === undefined ? cols : Math.min(cols, modifier.last(i));
    if (rowCopy) {
      if (j1 <= j0) continue;
      const at = from.offset + i * from.strides[0];
      (dst as Float64Array).set(
        (src as Float64Array).subarray(at + j0, at + j1),
        to.offset + i * to.strides[0] + j0,
      );
      continue;
    }
    for (let j = j0; j < j1; j++) {
      dst[to.offset + i * to.strides[0] + j * to.strides[1]] =
        src[from.offset + i * from.strides[0] + j * from.strides[1]];
    }
  }
}

/**
 * Copies every element of an N-D strided view (N > 2) from `from` into `to`: an odometer over
 * every dimension but the first, a run along the first per step.
 */
function moveStridedN(
  from: StridedView<TypedArray | unknown[]>,
  to: StridedView<TypedArray | unknown[]>,
): void {
  const src = from.data as any;
  const dst = to.data as any;
  const shape = to.shape;
  const nd = shape.length;
  if (shape.some((n) => n === 0)) return;
  const idx = new Array<number>(nd).fill(0);
  const [fs0, ts0] = [from.strides[0], to.strides[0]];
  for (;;) {
    let f = from.offset;
    let t = to.offset;
    for (let d = 1; d < nd; d++) {
      f += idx[d] * from.strides[d];
      t += idx[d] * to.strides[d];
    }
    for (let i = 0; i < shape[0]; i++) dst[t + i * ts0] = src[f + i * fs0];
    let d = 1;
    for (; d < nd; d++) {
      if (++idx[d] < shape[d]) break;
      idx[d] = 0;
    }
    if (d === nd) return;
  }
}

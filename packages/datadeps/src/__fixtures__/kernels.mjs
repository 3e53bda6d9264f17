// Task functions for the datadeps tests, loaded on every thread with
// everywhere(new URL('./__fixtures__/kernels.mjs', import.meta.url), ctx): they travel by
// reference and run on worker threads. Matrices are strided views { data, shape, strides, offset }.
import { taskProcessor } from '@dtask/core';

/** Julia's add!: x .+= y (typed arrays or plain arrays of equal length). */
export function addInto(x, y) {
  for (let i = 0; i < x.length; i++) x[i] += y[i];
  return taskProcessor().id;
}

/** Julia's copyto!: dst .= src. */
export function copyInto(dst, src) {
  for (let i = 0; i < dst.length; i++) dst[i] = src[i];
  return taskProcessor().id;
}

/** Sets every element of a typed array, or of a strided view, to `value`. */
export function fill(x, value) {
  if (ArrayBuffer.isView(x)) x.fill(value);
  else forEach(x, (i) => (x.data[i] = value));
  return taskProcessor().id;
}

/** Adds 1 to every element of a strided view (of every element its modifier part covers). */
export function inc(x) {
  forEach(x, (i) => (x.data[i] += 1));
  return taskProcessor().id;
}

/** Calls f(elementIndex) for each element of a 0/1/2-D strided view. */
function forEach(v, f) {
  const [r = 1, c = 1] = v.shape;
  const [rs = 0, cs = 0] = v.strides;
  for (let i = 0; i < r; i++) for (let j = 0; j < c; j++) f(v.offset + i * rs + j * cs);
}

/** Blocks this thread for `ms` (without using the CPU). */
function block(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Sleeps `ms` (blocking this thread), then appends `tag` to the log (a plain array). */
export function logAfter(log, ms, tag) {
  block(ms);
  log.push(tag);
  return taskProcessor().id;
}

/**
 * Records in `order` (an Int32Array over a SharedArrayBuffer; slot 0 is the next free slot)
 * that `tag` ran, after blocking `ms`.
 */
export function stamp(order, ms, tag) {
  block(ms);
  const at = Atomics.add(order, 0, 1) + 1;
  Atomics.store(order, at, tag);
  return taskProcessor().id;
}

/** Writes `value` into `obj[field]` (Julia's setproperty!). */
export function setField(obj, field, value) {
  obj[field] = value;
  return taskProcessor().id;
}

/** Reads `obj[field]`. */
export const getField = (obj, field) => obj[field];

/** Sums a typed array or a strided view's elements. */
export function sum(x) {
  let s = 0;
  if (ArrayBuffer.isView(x)) for (let i = 0; i < x.length; i++) s += x[i];
  else forEach(x, (i) => (s += x.data[i]));
  return s;
}

/** Fails on purpose. */
export function boom(message) {
  throw new Error(message);
}

/** Where it ran. */
export const whereAmI = () => taskProcessor().id;

/** Exits the worker thread (for loss tests) after writing `value` into x[0]. */
export function writeThenDie(x, value) {
  x[0] = value;
  process.exit(1);
}

/**
 * Writes `tag` into the next slot of `order` (an Int32Array over a SharedArrayBuffer; slot 0
 * counts), blocks until another stamper writes its start or `ms` passes, then writes `tag + 10`:
 * overlapping runs interleave their stamps. Waiting for the other's start (rather than a fixed
 * time) lets a run that may overlap wait long on a loaded machine and still end at once when it
 * does. `x` is the (annotated) data it claims to touch; it does not touch it.
 */
export function stampOn(_x, order, ms, tag) {
  const mine = appendStamp(order, tag);
  const until = Date.now() + ms;
  for (let left = ms; Atomics.load(order, 0) === mine && left > 0; left = until - Date.now())
    Atomics.wait(order, 0, mine, left);
  appendStamp(order, tag + 10);
  return taskProcessor().id;
}

/** Appends `tag` to `order` (see `stampOn`), wakes the stampers waiting on it; the new count. */
function appendStamp(order, tag) {
  const n = Atomics.add(order, 0, 1) + 1;
  Atomics.store(order, n, tag);
  Atomics.notify(order, 0);
  return n;
}

/** Adds 1 to the elements of the 2-D strided view `a` in the part named `part`. */
export function incPart(a, part) {
  const covers = {
    upper: (i, j) => j >= i,
    unitLower: (i, j) => j < i,
    diagonal: (i, j) => j === i,
  }[part];
  const [r, c] = a.shape;
  for (let i = 0; i < r; i++)
    for (let j = 0; j < c; j++)
      if (covers(i, j)) a.data[a.offset + i * a.strides[0] + j * a.strides[1]] += 1;
  return taskProcessor().id;
}

/** `x[0] += 1` after sleeping `ms[0]` milliseconds (none when 0): a run time the test sets. */
export function countAfter(x, ms) {
  if (ms[0] > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms[0]);
  x[0] += 1;
  return taskProcessor().id;
}

/** `addInto(x, y)`, but throws `message` instead when `message` is a string. */
export function addIntoOr(x, y, message) {
  if (typeof message === 'string') throw new Error(message);
  for (let i = 0; i < x.length; i++) x[i] += y[i];
  return taskProcessor().id;
}

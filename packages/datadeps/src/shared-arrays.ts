import { stridedFootprint } from './aliasing.js';
import { isDep } from './annotations.js';
import { type Footprint, footprint } from './footprint.js';
import { isStridedView, type StridedView, type TypedArray } from './strided-view.js';

/** Arguments past this many take the full analysis (the writes are kept as bits of a number). */
const MAX_ARGS = 30;

/**
 * The quick case of a region task's arguments: every one is a primitive (read), a typed array
 * over a `SharedArrayBuffer` or a strided view (a plain `{ data, shape, strides, offset }`
 * object, as `view` and `strided` make) of one, bare or in `In`/`Out`/`InOut`. Such arguments
 * need no copy and no write-back, and each is one footprint: `footprints[i]` is set to argument
 * `i`'s (undefined for a primitive) and `values[i]` to what the task receives (the annotation
 * removed), without the plans, access lists and checks of the full analysis. Returns the
 * written arguments as bits (bit `i`: argument `i`), or -1 when the arguments need the full
 * analysis (`planArgument`; the lists may then hold some entries).
 */
export function sharedFootprints(
  args: readonly unknown[],
  footprints: (Footprint | undefined)[],
  values: unknown[],
): number {
  if (args.length > MAX_ARGS) return -1;
  let written = 0;
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    footprints[i] = undefined;
    values[i] = a;
    if (typeof a !== 'object' || a === null) {
      if (typeof a === 'function') return -1;
      continue;
    }
    let writes = false;
    // A typed array is neither annotation: those checks (a symbol looked up on a typed
    // array, missed up its prototype chain) are made only for other objects.
    if (!ArrayBuffer.isView(a)) {
      if (isDep(a)) {
        writes = a.mode !== 'in';
        a = a.value;
        values[i] = a;
        if (typeof a !== 'object' || a === null) {
          if (writes || typeof a === 'function') return -1;
          continue;
        }
      }
      if (!ArrayBuffer.isView(a)) {
        const at = sharedViewFootprint(a);
        if (at === undefined) return -1;
        footprints[i] = at;
        if (writes) written |= 1 << i;
        continue;
      }
    }
    const at = viewFootprint(a);
    if (at === undefined) return -1;
    footprints[i] = at;
    if (writes) written |= 1 << i;
  }
  return written;
}

/**
 * The footprints of typed arrays over fixed-size shared memory, by array: a view's buffer,
 * offset and length never change, so its footprint (immutable) is made once, not per task (the
 * `buffer` getter is a call into the runtime, and a footprint two objects). Weak: it dies with
 * its array.
 */
const viewFootprints = new WeakMap<ArrayBufferView, Footprint>();

/**
 * The footprint of a typed array (or `DataView`) over a `SharedArrayBuffer`; undefined for one
 * over an ordinary buffer. Kept per array unless the buffer can grow (a length-tracking view's
 * bytes change as it grows).
 */
function viewFootprint(a: ArrayBufferView): Footprint | undefined {
  let at = viewFootprints.get(a);
  if (at !== undefined) return at;
  const buffer = a.buffer;
  if (!(buffer instanceof SharedArrayBuffer)) return undefined;
  at = footprint(buffer, [a.byteOffset, a.byteOffset + a.byteLength]);
  if (!(buffer as { growable?: boolean }).growable) viewFootprints.set(a, at);
  return at;
}

/**
 * The footprint of a strided view over a typed array in shared memory, made as a plain object
 * (not a class instance: a `Chunk`, `DTask` or `ChunkView` takes the full analysis); undefined
 * for anything else.
 */
function sharedViewFootprint(a: object): Footprint | undefined {
  if (Object.getPrototypeOf(a) !== Object.prototype || !isStridedView(a)) return undefined;
  const data = a.data;
  if (!ArrayBuffer.isView(data) || !((data as TypedArray).buffer instanceof SharedArrayBuffer)) {
    return undefined;
  }
  return stridedFootprint(a as StridedView<TypedArray>, undefined);
}

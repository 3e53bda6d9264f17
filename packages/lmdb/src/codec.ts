import { Buffer } from 'node:buffer';
import { deserialize, serialize } from 'node:v8';

/**
 * How a chunk's value is laid out in LMDB: binary data as its own bytes (no re-encoding, no
 * copy on the way out), everything else in V8's structured serialisation (what
 * `structuredClone` and `postMessage` use, so a spilled value comes back as a worker would
 * have received it). The tag, stored beside the bytes, says which and rebuilds the type.
 */
export const Tag = {
  Structured: 0,
  Buffer: 1,
  ArrayBuffer: 2,
  DataView: 3,
  /** Typed arrays: `Tag.Typed` + the constructor's index in `TYPED`. */
  Typed: 16,
} as const;

type TypedArrayConstructor =
  | Uint8ArrayConstructor
  | Int8ArrayConstructor
  | Uint8ClampedArrayConstructor
  | Int16ArrayConstructor
  | Uint16ArrayConstructor
  | Int32ArrayConstructor
  | Uint32ArrayConstructor
  | Float32ArrayConstructor
  | Float64ArrayConstructor
  | BigInt64ArrayConstructor
  | BigUint64ArrayConstructor;

const TYPED: readonly TypedArrayConstructor[] = [
  Uint8Array,
  Int8Array,
  Uint8ClampedArray,
  Int16Array,
  Uint16Array,
  Int32Array,
  Uint32Array,
  Float32Array,
  Float64Array,
  BigInt64Array,
  BigUint64Array,
];

/** A value ready to write: its tag and its bytes (a view, not a copy, for binary data). */
export interface Encoded {
  tag: number;
  bytes: Uint8Array;
}

const plainPrototypes = new Set<unknown>([
  Object.prototype,
  null,
  Array.prototype,
  Map.prototype,
  Set.prototype,
  Date.prototype,
  RegExp.prototype,
  Error.prototype,
]);

/**
 * Encodes `value` for LMDB, or returns `undefined` when it must stay in memory: functions,
 * symbols, class instances (their prototype would be lost), data in a `SharedArrayBuffer`
 * (spilling would unshare it), and anything V8 cannot serialise. Called by the spilling
 * store before each spill and by checkpoints.
 */
export function encode(value: unknown): Encoded | undefined {
  if (typeof value === 'object' && value !== null) {
    if (ArrayBuffer.isView(value)) return encodeView(value);
    // Copied: lmdb-js tags the buffers it writes from with an `address` property, which would
    // show on the caller's ArrayBuffer itself (for a view it lands on the view's buffer).
    if (value instanceof ArrayBuffer)
      return { tag: Tag.ArrayBuffer, bytes: new Uint8Array(value.slice(0)) };
    if (value instanceof SharedArrayBuffer) return undefined;
    if (!plainPrototypes.has(Object.getPrototypeOf(value))) return undefined;
  } else if (typeof value === 'function' || typeof value === 'symbol') {
    return undefined;
  }
  try {
    return { tag: Tag.Structured, bytes: serialize(value) };
  } catch {
    return undefined;
  }
}

function encodeView(view: ArrayBufferView): Encoded | undefined {
  if (view.buffer instanceof SharedArrayBuffer) return undefined;
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (Buffer.isBuffer(view)) return { tag: Tag.Buffer, bytes };
  if (view instanceof DataView) return { tag: Tag.DataView, bytes };
  const index = TYPED.findIndex((C) => Object.getPrototypeOf(view) === C.prototype);
  return index < 0 ? undefined : { tag: Tag.Typed + index, bytes };
}

/**
 * Rebuilds a value from its tag and bytes. `bytes` may be LMDB's own buffer, valid only until
 * the next read: binary data is copied once into a fresh, aligned `ArrayBuffer`.
 */
export function decode(tag: number, bytes: Uint8Array): unknown {
  if (tag === Tag.Structured) return deserialize(bytes);
  // Not zero-filled first (`new ArrayBuffer` would be): one pass over the bytes, not two.
  const fresh = Buffer.allocUnsafeSlow(bytes.byteLength); // its own ArrayBuffer, offset 0
  fresh.set(bytes);
  const copy = fresh.buffer as ArrayBuffer;
  if (tag === Tag.ArrayBuffer) return copy;
  if (tag === Tag.Buffer) return Buffer.from(copy);
  if (tag === Tag.DataView) return new DataView(copy);
  const C = TYPED[tag - Tag.Typed];
  if (C === undefined)
    throw new Error(
      `dtask lmdb: unknown value tag ${tag}; the store was written by another version`,
    );
  return new C(copy);
}

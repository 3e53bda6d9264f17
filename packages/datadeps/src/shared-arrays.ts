import { isDep } from './annotations.js';
import type { DependencyTracker } from './dependency-tracker.js';
import { type Footprint, footprint } from './footprint.js';

/** Arguments past this many take the full analysis (the writes are kept as bits of a number). */
const MAX_ARGS = 30;

/**
 * The quick case of a region task's arguments: every one is a primitive (read) or a typed array
 * over a `SharedArrayBuffer`, bare or in `In`/`Out`/`InOut`, whose memory no earlier task of the
 * region is still known to touch (`tracker`). Such a task waits for nothing, and its arguments
 * need no copy and no write-back. Returns the written arguments as bits (bit `i`: argument `i`),
 * or -1 when the arguments need the full analysis (`planArgument`).
 */
export function sharedArrayWrites(args: readonly unknown[], tracker: DependencyTracker): number {
  if (args.length > MAX_ARGS) return -1;
  let written = 0;
  for (let i = 0; i < args.length; i++) {
    let a = args[i];
    if (typeof a !== 'object' || a === null) {
      if (typeof a === 'function') return -1;
      continue;
    }
    let writes = false;
    // A typed array is neither annotation: those checks (a symbol looked up on a typed
    // array, missed up its prototype chain) are made only for other objects.
    if (!ArrayBuffer.isView(a)) {
      if (!isDep(a)) return -1;
      writes = a.mode !== 'in';
      a = a.value;
      if (typeof a !== 'object' || a === null) {
        if (writes || typeof a === 'function') return -1;
        continue;
      }
      if (!ArrayBuffer.isView(a)) return -1;
    }
    // `buffer` is a call into the runtime for a view: read once.
    const buffer = a.buffer;
    if (!(buffer instanceof SharedArrayBuffer) || tracker.touches(buffer)) return -1;
    if (writes) written |= 1 << i;
  }
  return written;
}

/** The footprint of a typed array argument (its bytes in its buffer). */
export function arrayFootprint(a: ArrayBufferView): Footprint {
  return footprint(a.buffer, [a.byteOffset, a.byteOffset + a.byteLength]);
}

import { ArgumentError } from '@dtask/core';
import { DArray, type Source } from './darray.js';
import { internals } from './internals.js';
import { describe } from './parts.js';

/**
 * Dagger's `copyto!(dest, src)`: `src`'s elements into `dest` (both may be views, blocked
 * differently), returning `dest`. Their shapes must agree once dimensions of size 1 are left
 * out; `dest`'s blocks that the copy touches get new tasks (as `da.set` writes).
 */
export function copyto(dest: DArray, src: Source): DArray {
  if (!(dest instanceof DArray)) {
    throw new ArgumentError(
      `copyto(dest, src): dest must be a DArray or a view of one (da.view(...)); got ${String(dest)}`,
    );
  }
  internals().set(dest, undefined, src, `copyto(dest, src) into ${describe(dest)}`);
  return dest;
}

// The group task of group-parts-main.mjs, loaded on every thread with `everywhere`.
import { groupParts } from '@dtask/core/plugin';

/** `n` outputs, the `i`-th a Float64Array of 1,000 values `i`, kept each under key `base + i`. */
export function outputs(base, n) {
  return groupParts(
    base,
    Array.from({ length: n }, (_, i) => new Float64Array(1000).fill(i)),
  );
}

import { ArgumentError } from '@dtask/core';
import type { Slice } from './slices.js';

/**
 * The slices of `view(view(x, ...inner), ...outer)` on `x` itself, so a view of a `ChunkView`
 * is one `ChunkView` of the same source (Dagger slices a `ChunkView` again). `outer` has one
 * slice per dimension `inner` keeps (every slice but the integer ones), in order; an integer
 * in `outer` picks one index of that kept dimension and drops it. Where `inner` is a range, an
 * `outer` index beyond it is an `ArgumentError` at once; where it is `':'`, the bounds are
 * checked where the data is, as for any `ChunkView`. Called by `view`; slices are already
 * checked (`checkSlice`).
 */
export function composeSlices(inner: readonly Slice[], outer: readonly Slice[]): Slice[] {
  const kept = inner.filter((s) => typeof s !== 'number').length;
  if (outer.length !== kept) {
    throw new ArgumentError(
      `view(): ${outer.length} slice(s) given for a view with ${kept} dimension(s); ` +
        "give one slice per dimension of the view, ':' for all of it",
    );
  }
  let next = 0;
  return inner.map((s): Slice => {
    if (typeof s === 'number') return s;
    const o = outer[next++];
    if (s === ':') return o;
    const [start, end, step = 1] = s;
    const count = Math.max(0, Math.ceil((end - start) / step));
    if (o === ':') return s;
    if (typeof o === 'number') {
      if (o >= count) {
        throw new ArgumentError(
          `view(): index ${o} is out of bounds for dimension ${next - 1} of a view of length ${count}`,
        );
      }
      return start + o * step;
    }
    const [a, b, c = 1] = o;
    if (b > count) {
      throw new ArgumentError(
        `view(): range [${a}, ${b}) is out of bounds for dimension ${next - 1} of a view of ` +
          `length ${count}`,
      );
    }
    return [start + a * step, Math.min(start + b * step, end), step * c];
  });
}

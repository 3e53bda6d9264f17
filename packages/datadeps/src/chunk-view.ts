import type { Chunk, DTask } from '@dtask/core';
import type { Slice } from './slices.js';

const BRAND = Symbol.for('dtask.datadeps.chunkView');

/**
 * A slice of the data of a `Chunk` or `DTask` (Dagger's `ChunkView`), made by `view(c, ...slices)`.
 * Passed to a task in a `spawnDatadeps` region (plain or as `In`/`Out`/`InOut`), the task receives
 * the sliced data: a helper task slices it where the chunk's data is (`sliceValue`), so only
 * the slice's view object, not a copy of the whole, is made there. Its aliasing is that slice
 * of the source: two views of one source alias when their index sets intersect in every
 * dimension, and any view aliases the source itself passed whole.
 *
 * A task that writes through a view (`InOut(view(c, …))`, `Out(…)`) runs on the processor
 * holding the source's data and writes that very data, in a `SharedArrayBuffer` or not, so
 * later readers of the source see its writes; a view only read is sliced wherever it is taken.
 */
export class ChunkView<T = unknown> {
  constructor(
    /** The sliced `Chunk` or `DTask`. */
    readonly source: Chunk<T> | DTask<T>,
    /** One slice per dimension, as given to `view` (checked). */
    readonly slices: readonly Slice[],
  ) {}

  /** `ChunkView(source, slices)`, for messages. */
  toString(): string {
    const s = this.slices.map((x) => (Array.isArray(x) ? `[${x.join(', ')}]` : String(x)));
    return `ChunkView(${String(this.source)}, ${s.join(', ')})`;
  }

  /** Brand (works across copies of the package). */
  get [BRAND](): true {
    return true;
  }
}

/** True for a `ChunkView`. */
export function isChunkView(x: unknown): x is ChunkView {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
}

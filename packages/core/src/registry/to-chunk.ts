import type { Chunk } from '../chunk/chunk.js';
import type { Processor } from '../processor/processor.js';
import type { AbstractScope } from '../scope/index.js';
import { defaultContext } from './default-context.js';
import { type ToChunkOptions, toChunkIn } from './to-chunk-in.js';

export type { ToChunkContext, ToChunkOptions } from './to-chunk-in.js';

/**
 * Dagger's `tochunk`: wraps data that lives on `proc` (default: the calling thread) into a
 * `Chunk` with scope `scope` (default: anywhere), kept in a storage device (default: RAM, of
 * `options.context` or the default context). The chunk is returned at once; the device write
 * completes behind it, and tasks or `fetch` that take the chunk wait for it (a failed write
 * makes them fail with the device's error). The stored data is freed once no handle to the
 * chunk is left.
 */
export function toChunk<T>(
  x: T,
  proc?: Processor,
  scope?: AbstractScope,
  options: ToChunkOptions = {},
): Chunk<T> {
  return toChunkIn(defaultContext, x, proc, scope, options);
}

import type { Chunk } from '../chunk/chunk.js';
import { type ScopeSpec, toScopeSpec } from '../scope/index.js';

/**
 * The holder named in a task's `ArgRefs` for a chunk lent to it: a `meta: true` task receives
 * its `Chunk` and `DTask` arguments as `Chunk` handles (Dagger's `meta`), wherever it runs.
 * A `Chunk` cannot cross a thread (it holds functions), so the scheduler keeps it, lends it
 * under a key, and sends a `LentChunk` in the argument's place; the runtime makes a `Chunk`
 * there whose `fetch` asks the scheduler for the data (`fetchTask` with that key), and tells
 * the scheduler when that `Chunk` is collected (`releaseTask`).
 */
export const LENT_HOLDER = '#lent';

/** What travels in place of a lent chunk: its key and what the worker's `Chunk` reports. */
export interface LentChunk {
  /** The key the scheduler keeps it under (negative, so it never meets a task id). */
  readonly key: number;
  /** The id of the processor holding its data. */
  readonly processor: string;
  /** The worker of that processor. */
  readonly worker: number;
  /** Its size in bytes, when known. */
  readonly bytes?: number | undefined;
  /** Its scope, when it can travel. */
  readonly scope?: ScopeSpec | undefined;
}

/** Descriptions made here, so that planning a task's arguments again does not lend twice. */
const made = new WeakSet<object>();

/** True for a `LentChunk` made by `describeLent` on this thread. */
export function isLent(x: unknown): x is LentChunk {
  return typeof x === 'object' && x !== null && made.has(x);
}

/** The `LentChunk` describing `chunk` under `key`. */
export function describeLent(key: number, chunk: Chunk<unknown>): LentChunk {
  let scope: ScopeSpec | undefined;
  try {
    scope = toScopeSpec(chunk.scope);
  } catch {
    scope = undefined; // a scope that cannot travel: the worker's chunk says AnyScope
  }
  const p = chunk.processor;
  const lent = { key, processor: p.id, worker: p.worker, bytes: chunk.bytes, scope };
  made.add(lent);
  return lent;
}

import { type Chunk, isChunk } from '../chunk/chunk.js';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { isPlainObject } from '../options/index.js';
import type { DTask } from '../task/dtask.js';
import { knownOptionKeys, normalizeOptions, type TaskOptionsInput } from '../task/options.js';
import { Context } from './context.js';
import { type ItemSource, MapResults } from './map-results.js';
import { batchOf, type SpawnBatch } from './spawn-batch.js';
import { isSource, type Source, warnArity, zipSources } from './zip-sources.js';

/** Options of `map`: how many tasks at once, plus any task option for every task. */
export interface MapOptions extends TaskOptionsInput {
  /**
   * Items read and spawned together, in one pass of the scheduler (Dask's `batch_size`).
   * Default: 256 for a sync iterable; 1 for an async one, so a slow source's items start as
   * they come.
   */
  batchSize?: number;
  /** The most items whose results are not yet read back (default 1024): the memory bound. */
  concurrency?: number;
  /** Spawn into this context (a `Context`) instead of the current one. */
  context?: { spawn(first: unknown, ...rest: unknown[]): DTask<unknown> };
}

/** The options `map` takes for itself (the rest are task options). */
const MAP_OPTIONS = ['batchSize', 'concurrency', 'context'];

/**
 * `f(item)` as a task for each item of a sync or async iterable (Dask's `client.map`, one
 * Piscina `run` per item), with the results read back in input order:
 *
 * ```ts
 * for await (const y of map((x: number) => x * x, naturals())) if (y > 1e6) break;
 * ```
 *
 * Items are read lazily, so an endless source works and memory stays flat: at most
 * `concurrency` items are in flight, and reading stops while the consumer does not read.
 * A failed task throws its `DTaskFailedError` from the loop at its place. Tasks go to the current context (the
 * default one, or a task's own), or to `options.context`. When the loop ends
 * early (`break`, `return`, a throw), the tasks still running are cancelled and the source's
 * iterator is closed. Other options are task options for every task (`scope`, `name`, ...).
 * Throws `ArgumentError` at the call for a bad source or bad options (task options included),
 * and `spawn`'s errors (a function that cannot travel, say) when the first batch is read.
 */
export function map<T, R>(
  f: ((item: T) => R) | Chunk<(item: T) => R>,
  items: Source<T | DTask<T>>,
  options?: MapOptions,
): AsyncIterableIterator<Awaited<R>>;
/** `f(x, y)` for each pair of items read together from `xs` and `ys` (Dask's `client.map(f, xs, ys)`). */
export function map<T, U, R>(
  f: ((x: T, y: U) => R) | Chunk<(x: T, y: U) => R>,
  xs: Source<T | DTask<T>>,
  ys: Source<U | DTask<U>>,
  options?: MapOptions,
): AsyncIterableIterator<Awaited<R>>;
/** `f(x, y, z)` for each triple of items read together from three iterables. */
export function map<T, U, V, R>(
  f: ((x: T, y: U, z: V) => R) | Chunk<(x: T, y: U, z: V) => R>,
  xs: Source<T | DTask<T>>,
  ys: Source<U | DTask<U>>,
  zs: Source<V | DTask<V>>,
  options?: MapOptions,
): AsyncIterableIterator<Awaited<R>>;
/** `f(...items)` with one item from each of any number of iterables. */
export function map<R>(
  f: ((...items: never[]) => R) | Chunk<(...items: never[]) => R>,
  ...sourcesThenOptions: unknown[]
): AsyncIterableIterator<Awaited<R>>;
export function map(f: unknown, ...rest: unknown[]): AsyncIterableIterator<unknown> {
  const where = 'map(f, items, options)';
  if (typeof f !== 'function' && !isChunk(f)) {
    throw new ArgumentError(
      `${where}: f must be a function (or a Chunk holding one) called with each item; got ${describeValue(f)}`,
    );
  }
  const sources: Source<unknown>[] = [];
  let options: MapOptions = {};
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (isSource(a)) {
      sources.push(a);
      continue;
    }
    if (i === rest.length - 1 && i > 0 && a !== undefined) {
      options = a as MapOptions;
      break;
    }
    if (a === undefined && i === rest.length - 1 && i > 0) break;
    throw new ArgumentError(
      i === 0
        ? `${where}: items must be an iterable or an async iterable`
        : `${where}: argument ${i + 2} must be another iterable of items (map(f, xs, ys) calls f(x, y)) or, last, the options; got ${describeValue(a)}`,
    );
  }
  if (sources.length === 1) warnArity(f, where);
  const items = sources.length === 1 ? (sources[0] as Source<unknown>) : zipSources(sources, where);
  const asyncSource = typeof (items as AsyncIterable<unknown>)[Symbol.asyncIterator] === 'function';
  const checked: unknown = options;
  if (!isPlainObject(checked)) throw new ArgumentError(`${where}: options must be an object`);
  const {
    batchSize = asyncSource ? 1 : 256,
    concurrency = 1024,
    context,
    ...taskOptions
  } = options;
  if (context !== undefined && typeof context?.spawn !== 'function') {
    throw new ArgumentError(`${where}: context must be a Context`);
  }
  for (const [key, value] of [
    ['batchSize', batchSize],
    ['concurrency', concurrency],
  ] as const) {
    if (!Number.isInteger(value) || value < 1) {
      throw new ArgumentError(`${where}: ${key} must be a positive integer, got ${String(value)}`);
    }
  }
  if ('transfer' in taskOptions) {
    throw new ArgumentError(
      `${where}: the transfer option names the buffers of one task; spawn each item's task with its own ({ transfer: [buffer] }), or pass SharedArrayBuffers to share them`,
    );
  }
  // Checked now (with the names the user wrote), so a typo fails at the call, not at the first read.
  const known = new Set(knownOptionKeys());
  for (const key of Object.keys(taskOptions)) {
    if (!known.has(key)) {
      throw new ArgumentError(
        `${where}: unknown option '${key}'. map's own options: ${MAP_OPTIONS.join(', ')}; ` +
          `task options for every task: ${[...known].join(', ')}`,
      );
    }
  }
  const explicit = normalizeOptions(taskOptions, where);
  const spawnBatch: SpawnBatch =
    context === undefined || context instanceof Context
      ? batchOf(context, explicit, f)
      : (argLists, out) => {
          for (const args of argLists) out.push(context.spawn(taskOptions, f, ...args));
        };
  const source: ItemSource = asyncSource
    ? { iterator: (items as AsyncIterable<unknown>)[Symbol.asyncIterator](), isAsync: true }
    : { iterator: (items as Iterable<unknown>)[Symbol.iterator](), isAsync: false };
  return new MapResults(
    source,
    spawnBatch,
    sources.length === 1 ? oneArgument : (item) => item as unknown[],
    Math.min(batchSize, concurrency),
    concurrency,
  );
}

/** One source's item as a task's arguments. */
function oneArgument(item: unknown): unknown[] {
  return [item];
}

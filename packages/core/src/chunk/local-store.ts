/**
 * Where a worker runtime keeps the results it made (and small results kept for local
 * consumers), by key: the task id that made them. A runtime without a storage plugin keeps
 * them in its own `PooledStore` (runtime/block-pool.ts: a `Map` by task id that tells the block
 * pool of every read and removal), or in a plain `Map` (`defaultLocalStore`), which satisfies
 * this interface as it is, where a value adapter is set.
 * A plugin may give the runtime another store through `WorkerPluginHost.setLocalStore` (e.g.
 * `@dtask/lmdb`'s spilling store, which keeps the process under a memory limit by moving
 * least recently used entries to disk and reading them back on `get`).
 *
 * Rules every store keeps:
 * - `get`, `has`, `delete`, `clear` and `size` are synchronous, as with a `Map`: a store that
 *   moved an entry elsewhere reads it back inside `get` (LMDB reads are memory-mapped and
 *   synchronous), so the runtime's fetch and peer paths need no change.
 * - `set(key, value, bytes)` receives the runtime's measure of the value (`sizeOf`), so a
 *   spilling store need not measure again; a `Map` ignores the third argument.
 * - Values held are settled results (never promises), returned as they were stored or as an
 *   equal copy of the same type (a store that serialised them).
 * - `delete` frees whatever the entry took, wherever it is (memory or disk); `clear` frees
 *   everything. Both are called from the release paths (`release` messages, shutdown).
 */
export interface LocalStore<K = number> {
  /** Entries held (in memory or elsewhere). */
  readonly size: number;
  /** Whether an entry exists under `key`, wherever it is held. */
  has(key: K): boolean;
  /** The value under `key` (read back first if the store moved it away), or `undefined`. */
  get(key: K): unknown;
  /** Stores `value` under `key`; `bytes` is the caller's measure of it (from `sizeOf`). */
  set(key: K, value: unknown, bytes?: number): unknown;
  /**
   * The values held in memory now (not those moved elsewhere, which are copies sharing no
   * buffer with anything), and any the store still reads in the background (a write to disk
   * in flight, even of a deleted entry). The runtime uses it to tell whether a buffer is still
   * in use.
   */
  values(): IterableIterator<unknown>;
  /** Removes and frees the entry under `key`; true if there was one. */
  delete(key: K): boolean;
  /** Removes and frees every entry. */
  clear(): void;
  /**
   * Optional back-pressure: a promise the runtime waits for before it starts another task,
   * or `undefined` to go on at once. A spilling store returns one while its process is over
   * its memory limit with writes to disk in flight, so that producers wait for the disk
   * instead of piling up memory. Checked before every task; a `Map` has none.
   */
  backlog?(): Promise<void> | undefined;
  /**
   * Optional, for a store of a device's memory: registers the listener told when entries move
   * from the device to host memory (spilling by conversion). The runtime tells the scheduler,
   * which then places their dependents as it would near host data (on a CPU thread, where the
   * task may run there). Called once, when the runtime starts.
   */
  onMovedToHost?(listener: (keys: readonly number[]) => void): void;
  /**
   * Optional, for a store that moves entries away (a spilling store): the value under `key` is
   * in use by a running task from now until `unhold(key)`. The task may change it in place
   * (an in-place write, a shard's piece) or hold it across an `await`, so the store keeps that
   * very object in memory and never writes it out meanwhile. Holds of one key nest. The
   * runtime holds each input a task reads from the store, from the task's start (when a store
   * offers `hold` or `backlog`, inputs are read as the task starts) to its end, failed or not.
   */
  hold?(key: K): void;
  /** Ends one `hold(key)`; the entry may move away again. Nothing happens for an absent key. */
  unhold?(key: K): void;
}

/** The store a worker runtime uses when no plugin supplies one: a plain `Map`. */
export function defaultLocalStore<K = number>(): LocalStore<K> {
  return new Map<K, unknown>();
}

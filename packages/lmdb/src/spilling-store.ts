import { type LogEvent, StorageError, sizeOf } from '@dtask/core';
import { logEvent, loggingState, now } from '@dtask/core/plugin';
import type { LocalStore } from '@dtask/core/worker';
import { ABSENT, type ChunkDb, STORE_CLOSED, storageErrorOf } from './chunk-db.js';
import { encode } from './codec.js';
import type { SpillPolicy } from './lmdb-options.js';
import { RecencyList, type RecencyNode } from './recency-list.js';
import type { SharedCounters } from './shared-counters.js';

/** Where an entry of a spilling store is now. */
export type ChunkLocation = 'memory' | 'spilling' | 'disk';

/** Options of `new SpillingStore(options)`. */
export interface SpillingStoreOptions {
  /** The LMDB store spilled entries go to (or its opening). */
  db: ChunkDb | Promise<ChunkDb>;
  /** The process's byte budget and counters, shared by its threads. */
  counters: SharedCounters;
  /** Bytes all stores of the process may hold in memory together. */
  memoryLimit: number;
  /** Bytes all stores of the process may hold on disk together; `undefined`: no limit. */
  diskLimit?: number | undefined;
  /** Which entries leave memory first. */
  policy: SpillPolicy;
  /** Prefix of this store's LMDB keys, unique among the stores sharing the LMDB store. */
  prefix: string;
  /** Processor id and worker for log events, e.g. `thread:1:2`. */
  processor?: string;
  worker?: number;
  /**
   * Where spill and unspill events go instead of this thread's log: a worker thread's store
   * sends them to the main thread, whose log the user reads (`fetchLogs`).
   */
  onEvent?: (event: LogEvent) => void;
}

interface Entry<K> extends RecencyNode {
  key: K;
  dbKey: string;
  value: unknown;
  /** Bytes counted in memory while resident (`sizeOf`, or the caller's measure). */
  size: number;
  /** Bytes its encoding takes on disk while spilled (or being spilled). */
  diskBytes: number;
  location: ChunkLocation;
  /** Read while being spilled: stays in memory once the write is done. */
  touched: boolean;
  /** Deleted while being spilled: its disk copy is removed once the write is done. */
  deleted: boolean;
  /** Running tasks using its value now (`hold`): while above 0, it is never spilled. */
  holds: number;
}

/**
 * A `LocalStore` (and the body of the `lmdb` device) that keeps its process under a memory
 * limit: when the bytes held in memory by all stores of the process (a shared counter) pass
 * `memoryLimit`, entries leave memory in `policy` order (least or most recently used first,
 * never the one just stored or read unless it alone passes the limit) and are written to LMDB
 * in the background; a `get` of a spilled entry reads it back synchronously (an unspill).
 *
 * - An entry being written stays readable from memory and counts in memory until the write
 *   commits. If it was read meanwhile it stays in memory (and the disk copy is dropped), and
 *   other entries are written out to make room for it.
 * - An unspilled entry's disk copy is removed: a value may be changed in place once read
 *   back, so a later spill writes it again.
 * - A spill that would pass `diskLimit`, that the disk holding the store has no room for, or
 *   that LMDB refuses (disk or map full), does not happen: the entry stays in memory, intact,
 *   and the graph goes on over the memory limit; `spillFailures` counts it, a `spillFailed` log
 *   event names the error's code (`DTASK_STORAGE_FULL`) and a warning with that code says
 *   what to do (once per store).
 * - A value a running task holds (`hold`, until `unhold`) is never written out: the task may
 *   change it in place or keep it across an await, and a copy on disk would lose that. When
 *   the last hold ends, room is made if held values kept the process over its limit.
 * - Values that cannot be written (functions, class instances, shared memory) stay in memory.
 * - `delete` frees the entry wherever it is; `values()` also yields values whose writes are
 *   in flight, so the runtime never transfers (detaches) a buffer LMDB is still reading.
 */
export class SpillingStore<K = number> implements LocalStore<K> {
  private readonly entries = new Map<K, Entry<K>>();
  private readonly recency = new RecencyList<Entry<K>>();
  private readonly writing = new Set<Entry<K>>();
  private readonly writes = new Set<Promise<void>>();
  private db: ChunkDb | undefined;
  private readonly dbReady: Promise<ChunkDb>;
  private readonly counters: SharedCounters;
  private warned = false;
  private closed = false;

  constructor(private readonly options: SpillingStoreOptions) {
    this.counters = options.counters;
    this.dbReady = Promise.resolve(options.db);
    this.dbReady.then(
      (db) => {
        this.db = db;
      },
      () => {},
    );
  }

  /** Entries held, wherever they are. */
  get size(): number {
    return this.entries.size;
  }

  /** Whether `key` holds an entry, wherever it is. */
  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Where the entry under `key` is now, or `undefined`. */
  location(key: K): ChunkLocation | undefined {
    return this.entries.get(key)?.location;
  }

  /** Bytes counted for the entry under `key` (its in-memory measure), or `undefined`. */
  bytes(key: K): number | undefined {
    return this.entries.get(key)?.size;
  }

  /** The value under `key`, read back from LMDB first if it was spilled; `undefined` if absent. */
  get(key: K): unknown {
    const entry = this.entries.get(key);
    if (entry === undefined) return undefined;
    if (entry.location === 'disk') return this.unspill(entry);
    this.counters.hit();
    if (entry.location === 'spilling') entry.touched = true;
    else this.recency.touch(entry);
    return entry.value;
  }

  /** Stores `value` under `key` in memory (measured by `bytes`, else `sizeOf`), then makes room. */
  set(key: K, value: unknown, bytes?: number): this {
    if (this.entries.has(key)) this.delete(key);
    const size = Math.ceil(bytes ?? sizeOf(value));
    const entry: Entry<K> = {
      key,
      dbKey: this.options.prefix + String(key),
      value,
      size,
      diskBytes: 0,
      location: 'memory',
      touched: false,
      deleted: false,
      holds: 0,
      older: undefined,
      newer: undefined,
      listed: false,
    };
    this.entries.set(key, entry);
    this.counters.addMemory(size);
    this.recency.touch(entry);
    this.relieve(entry);
    return this;
  }

  /** Removes the entry under `key` and frees its memory and disk bytes. */
  delete(key: K): boolean {
    const entry = this.entries.get(key);
    if (entry === undefined) return false;
    this.entries.delete(key);
    this.recency.remove(entry);
    if (entry.location === 'memory') {
      this.counters.addMemory(-entry.size);
    } else if (entry.location === 'spilling') {
      entry.deleted = true; // `committed` drops its bytes and its disk copy
    } else {
      this.counters.addDisk(-entry.diskBytes);
      void this.db?.remove(entry.dbKey).catch(() => {});
    }
    entry.value = undefined;
    return true;
  }

  /**
   * A running task uses the value under `key` (see `LocalStore.hold`): it stays in memory, as
   * this very object, until as many `unhold`s. An entry being written when it is held stays in
   * memory once the write is done.
   */
  hold(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined) return;
    entry.holds++;
    if (entry.location === 'spilling') entry.touched = true;
  }

  /**
   * Ends one `hold(key)`. Released, the entry may be written out again: if the process is
   * over its limit (held entries could not make room), room is made now, not at the next store.
   */
  unhold(key: K): void {
    const entry = this.entries.get(key);
    if (entry === undefined || entry.holds === 0) return;
    entry.holds--;
    if (entry.holds === 0) this.relieve();
  }

  /** Removes every entry. */
  clear(): void {
    for (const key of [...this.entries.keys()]) this.delete(key);
  }

  /** Values in memory, and those LMDB is still writing (their buffers must not be detached). */
  *values(): IterableIterator<unknown> {
    for (const entry of this.entries.values()) {
      if (entry.location === 'memory') yield entry.value;
    }
    for (const entry of this.writing) yield entry.value;
  }

  /**
   * Back-pressure for the worker runtime (`LocalStore.backlog`): while the process is over its
   * memory limit counting the chunks still being written (by any of its threads), a promise
   * that resolves when one of those writes is done; else `undefined`. Producers thus wait for
   * the disk instead of piling up memory.
   */
  backlog(): Promise<void> | undefined {
    const { counters } = this;
    if (counters.memory <= this.options.memoryLimit || counters.pending === 0) return undefined;
    // Another thread's writes count too: wait for any write of the process to finish.
    return this.writes.size > 0 ? Promise.race(this.writes) : counters.pendingDropped(50);
  }

  /** Resolves once every spill started so far has committed (or failed). */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.all([...this.writes]);
  }

  /** Frees every entry, waits for writes in flight, and stops spilling. */
  async close(): Promise<void> {
    this.clear();
    await this.flush();
    this.closed = true;
  }

  /**
   * Spills entries of this store while the process is over its memory limit. Called after
   * every `set` and unspill; `keep` (the entry just stored or read) goes last.
   */
  relieve(keep?: Entry<K>): void {
    if (this.closed || !this.over()) return;
    const lru = this.options.policy === 'lru';
    let entry = lru ? this.recency.oldest : this.recency.newest;
    // A refused spill moves its entry to the newest end: each entry is tried at most once.
    let tries = this.entries.size;
    while (entry !== undefined && this.over() && tries-- > 0) {
      const next = lru ? entry.newer : entry.older;
      // A full disk refuses the others too: the next store or read tries again.
      if (entry !== keep && entry.holds === 0 && !this.spill(entry)) return;
      entry = next as Entry<K> | undefined;
    }
    if (keep?.listed && keep.holds === 0 && this.over()) this.spill(keep);
  }

  /** True while the bytes in memory, less those being written out, pass the limit. */
  private over(): boolean {
    return this.counters.memory - this.counters.pending > this.options.memoryLimit;
  }

  /** Starts writing `entry` out; false when the disk holding the store has no room for it. */
  private spill(entry: Entry<K>): boolean {
    const encoded = encode(entry.value);
    if (encoded === undefined) {
      this.recency.remove(entry); // cannot be written: it stays in memory, no longer a candidate
      return true;
    }
    const diskBytes = encoded.bytes.byteLength;
    const { diskLimit } = this.options;
    if (diskLimit !== undefined && this.counters.disk + diskBytes > diskLimit) {
      this.refused(
        entry,
        StorageError.full('lmdb', entry.dbKey, diskBytes, this.counters.disk, diskLimit),
      );
      return true;
    }
    if (this.db !== undefined && !this.db.hasRoomFor(diskBytes)) {
      this.refused(entry, diskFull(this.db.path, entry.dbKey, diskBytes));
      return false;
    }
    this.recency.remove(entry);
    entry.location = 'spilling';
    entry.touched = false;
    entry.diskBytes = diskBytes;
    this.writing.add(entry);
    this.counters.addPending(entry.size);
    this.counters.addDisk(diskBytes);
    const started = now();
    const write = (this.db ? this.db.write(entry.dbKey, encoded) : this.writeLater(entry, encoded))
      .then(
        () => this.committed(entry, started),
        (error) => this.failed(entry, error),
      )
      .finally(() => this.writes.delete(write));
    this.writes.add(write);
    return true;
  }

  private async writeLater(entry: Entry<K>, encoded: NonNullable<ReturnType<typeof encode>>) {
    const db = await this.dbReady;
    await db.write(entry.dbKey, encoded);
  }

  private committed(entry: Entry<K>, started: number): void {
    this.writing.delete(entry);
    this.counters.addPending(-entry.size);
    this.counters.addMemory(-entry.size);
    this.counters.spilled(entry.diskBytes);
    if (this.logging()) this.log('spill', started, entry);
    if (entry.deleted) {
      this.counters.addDisk(-entry.diskBytes);
      void this.db?.remove(entry.dbKey).catch(() => {});
      return;
    }
    if (entry.touched) {
      // Read while it was written: it is in use, so it stays in memory.
      this.counters.addMemory(entry.size);
      this.dropDiskCopy(entry);
      entry.location = 'memory';
      this.recency.touch(entry);
      // Back in memory, it may put the process over its limit again: others make room first.
      this.relieve(entry);
      return;
    }
    entry.location = 'disk';
    entry.value = undefined;
  }

  private failed(entry: Entry<K>, error: unknown): void {
    this.writing.delete(entry);
    this.counters.addPending(-entry.size);
    this.counters.addDisk(-entry.diskBytes);
    entry.diskBytes = 0;
    if (entry.deleted) {
      this.counters.addMemory(-entry.size);
      return;
    }
    entry.location = 'memory';
    this.refused(entry, storageErrorOf(error, entry.dbKey));
  }

  /**
   * A spill that could not happen: the entry stays in memory, newest, and it is reported: a
   * `spillFailed` log event each time (its `detail` starts with the error's code), and a
   * warning with that code once per store.
   */
  private refused(entry: Entry<K>, error: unknown): void {
    this.counters.failed();
    this.recency.touch(entry);
    const code = StorageError.isInstance(error) ? error.code : 'DTASK_STORAGE_IO';
    const message = String((error as Error)?.message ?? error);
    if (this.logging()) {
      (this.options.onEvent ?? logEvent)({
        kind: 'spillFailed',
        time: now(),
        bytes: entry.size,
        processor: this.options.processor,
        worker: this.options.worker,
        to: 'lmdb',
        detail: `${code}: ${message}`,
      });
    }
    // A store closing under a spill is no fault to warn of: the value was being let go.
    if (this.warned || this.closed || code === STORE_CLOSED) return;
    this.warned = true;
    process.emitWarning(
      `dtask lmdb: a chunk could not be spilled and stays in memory, over the memory limit ` +
        `(${message}). Raise diskLimit, free disk space, or release results sooner.`,
      { code },
    );
  }

  private unspill(entry: Entry<K>): unknown {
    const db = this.db;
    const started = now();
    const value = db === undefined ? ABSENT : db.read(entry.dbKey);
    if (value === ABSENT) {
      throw new StorageError(
        StorageError.MISSING,
        `dtask lmdb: the spilled chunk ${entry.dbKey} is missing from ${db?.path ?? 'the store'}; ` +
          'was the store directory removed while in use?',
        { device: 'lmdb', key: entry.dbKey },
      );
    }
    this.counters.unspilled(entry.diskBytes);
    if (this.logging()) this.log('unspill', started, entry);
    entry.value = value;
    entry.location = 'memory';
    this.dropDiskCopy(entry);
    this.counters.addMemory(entry.size);
    this.recency.touch(entry);
    this.relieve(entry);
    return value;
  }

  private dropDiskCopy(entry: Entry<K>): void {
    this.counters.addDisk(-entry.diskBytes);
    entry.diskBytes = 0;
    void this.db?.remove(entry.dbKey).catch(() => {});
  }

  private logging(): boolean {
    return loggingState.enabled || this.options.onEvent !== undefined;
  }

  private log(kind: 'spill' | 'unspill', started: number, entry: Entry<K>): void {
    const end = now();
    (this.options.onEvent ?? logEvent)({
      kind,
      time: started,
      duration: end - started,
      bytes: entry.diskBytes || entry.size,
      processor: this.options.processor,
      worker: this.options.worker,
      [kind === 'spill' ? 'to' : 'from']: 'lmdb',
      detail: entry.dbKey,
    });
  }
}

/** The disk holding the store at `path` has no room for a spill of `bytes`. */
function diskFull(path: string, key: string, bytes: number): StorageError {
  return new StorageError(
    StorageError.FULL,
    `Storage device 'lmdb' is full: the disk holding ${path} has no room for ${JSON.stringify(key)} ` +
      `(${bytes} bytes); free disk space, or give lmdb() a path on a larger disk`,
    { device: 'lmdb', key },
  );
}

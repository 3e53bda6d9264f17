import { threadId } from 'node:worker_threads';
import { type StorageDevice, StorageError } from '@dtask/core';
import { type StoragePutOptions, type StorageUsage, storagePutSize } from '@dtask/core/plugin';
import type { ChunkDb } from './chunk-db.js';
import type { SpillPolicy } from './lmdb-options.js';
import { SharedCounters } from './shared-counters.js';
import { type ChunkLocation, SpillingStore } from './spilling-store.js';

/** Options of `new LmdbDevice(options)`. */
export interface LmdbDeviceOptions {
  /** The LMDB store spilled values go to (or its opening). */
  db: ChunkDb | Promise<ChunkDb>;
  /** Bytes of values the process may hold in memory (shared with its other stores). */
  memoryLimit: number;
  /** Bytes of spilled values the process may hold on disk; `undefined`: no limit. */
  diskLimit?: number | undefined;
  /** Which values leave memory first; default `lru`. */
  policy?: SpillPolicy;
  /** The process's counters, when it has other stores; default: counters of its own. */
  counters?: SharedCounters;
  /** The processor id and worker its spill and unspill events name (its thread's). */
  processor?: string;
  worker?: number;
}

let devices = 0;

/**
 * The `lmdb` storage device (MemPool's disk device behind a `SimpleRecencyAllocator`): values
 * stay in memory while the process is under `memoryLimit` and spill to LMDB, least (or most)
 * recently used first, when it passes it; `get` reads a spilled value back. `capacity` is
 * `memoryLimit + diskLimit` (everything it holds fits in one or the other); a `put` that would
 * pass it throws `StorageError` `DTASK_STORAGE_FULL` and changes nothing. `put` resolves once
 * the spills it caused have committed, so a fast producer is held back to the disk's pace.
 * Added by the `lmdb` plugin to its context (`toChunk(x, proc, scope, { device: 'lmdb' })`).
 */
export class LmdbDevice implements StorageDevice {
  /** Always `lmdb`. */
  readonly name = 'lmdb';
  /** `memoryLimit + diskLimit`, or `undefined` without a disk limit. */
  readonly capacity: number | undefined;
  /** The process's counters (shared with its other stores). */
  readonly counters: SharedCounters;
  private readonly store: SpillingStore<string>;
  private bytes = 0;

  constructor(options: LmdbDeviceOptions) {
    this.counters = options.counters ?? new SharedCounters();
    this.capacity =
      options.diskLimit === undefined ? undefined : options.memoryLimit + options.diskLimit;
    this.store = new SpillingStore<string>({
      db: options.db,
      counters: this.counters,
      memoryLimit: options.memoryLimit,
      diskLimit: options.diskLimit,
      policy: options.policy ?? 'lru',
      prefix: `d:${process.pid}:${this.counters.instance}:${threadId}:${++devices}:`,
      processor: options.processor,
      worker: options.worker,
    });
  }

  /** Stores `value` under `key`; resolves once the spills this caused are written. */
  async put(key: string, value: unknown, options?: StoragePutOptions): Promise<void> {
    const size = storagePutSize(this.name, key, value, options);
    const old = this.store.bytes(key) ?? 0;
    if (this.capacity !== undefined && this.bytes - old + size > this.capacity) {
      throw StorageError.full(this.name, key, size, this.bytes, this.capacity);
    }
    this.store.set(key, value, size);
    this.bytes += size - old;
    await this.store.flush();
  }

  /** The value under `key` (read back from disk if spilled); `DTASK_STORAGE_MISSING` if absent. */
  get(key: string): unknown {
    if (!this.store.has(key)) throw StorageError.missing(this.name, key);
    return this.store.get(key);
  }

  /** Whether `key` holds an entry, in memory or on disk. */
  has(key: string): boolean {
    return this.store.has(key);
  }

  /** Removes the entry under `key` from memory and disk. */
  delete(key: string): boolean {
    const size = this.store.bytes(key);
    if (size === undefined) return false;
    this.store.delete(key);
    this.bytes -= size;
    return true;
  }

  /** The bytes accounted for `key` (its in-memory measure, wherever it is now). */
  size(key: string): number | undefined {
    return this.store.bytes(key);
  }

  /** Entries held and their accounted bytes. */
  usage(): StorageUsage {
    return { entries: this.store.size, bytes: this.bytes };
  }

  /** Where the entry under `key` is now: `memory`, `spilling` or `disk`. */
  location(key: string): ChunkLocation | undefined {
    return this.store.location(key);
  }

  /** Resolves once every spill started so far has committed. */
  flush(): Promise<void> {
    return this.store.flush();
  }

  /** Frees every entry (memory and disk) and waits for writes in flight. */
  async close(): Promise<void> {
    this.bytes = 0;
    await this.store.close();
  }
}

import { StorageError } from '@dtask/core';
import type { Database, RootDatabase } from 'lmdb';
import { decode, type Encoded } from './codec.js';
import { COMMIT_MARGIN, commitCause, freeBytes, outOfSpace } from './commit-errors.js';

/** Options of `ChunkDb.open`. */
export interface ChunkDbOptions {
  /** fsync every commit (see `LmdbOptions.durable`). */
  durable?: boolean;
}

/**
 * The code of the `StorageError` a write to a closed (or closing) store rejects with: the
 * value was not written, and stays wherever its caller keeps it.
 */
export const STORE_CLOSED = 'DTASK_STORAGE_CLOSED';

/** What `ChunkDb.read` returns for a key it does not hold. */
export const ABSENT: unique symbol = Symbol('dtask.lmdb.absent');

interface Shared {
  db: Promise<ChunkDb>;
  refs: number;
}

/** One LMDB environment per path per thread; lmdb-js shares it further between threads. */
const opened = new Map<string, Shared>();

/**
 * The LMDB side of `@dtask/lmdb`: one environment (directory) holding values under string
 * keys in two databases: `data` (the value's bytes, raw for binary data) and `meta` (one tag
 * byte saying how to rebuild it, see `codec.ts`). Both are written in the same transaction
 * (lmdb-js batches writes made in one event turn, and `writeSync` uses one explicitly), and
 * `meta` after `data`, so a key present in `meta` always has its bytes: a process killed
 * mid-write leaves only whole entries. Used by the spilling stores, the device and
 * checkpoints; lmdb loads on the first `open`.
 */
export class ChunkDb {
  private closed = false;
  /** A check of the next batch's commit promise is queued (see `handleBatchCommit`). */
  private batchChecked = false;

  private constructor(
    /** The directory of the environment. */
    readonly path: string,
    private readonly env: RootDatabase,
    private readonly data: Database<Buffer, string>,
    private readonly meta: Database<Buffer, string>,
  ) {}

  /**
   * Opens (or shares, within this thread) the environment at `path`, creating it if needed.
   * Each `open` must be matched by a `close`; the last one closes the environment.
   */
  static open(path: string, options: ChunkDbOptions = {}): Promise<ChunkDb> {
    let shared = opened.get(path);
    if (shared === undefined) {
      shared = { db: ChunkDb.openNew(path, options), refs: 0 };
      opened.set(path, shared);
      shared.db.catch(() => opened.delete(path));
    }
    shared.refs++;
    return shared.db;
  }

  private static async openNew(path: string, options: ChunkDbOptions): Promise<ChunkDb> {
    const lmdb = await import('lmdb');
    const env = lmdb.open({
      path,
      maxDbs: 4,
      compression: false,
      noSync: !options.durable,
    });
    const data = env.openDB<Buffer, string>('data', { encoding: 'binary', compression: false });
    const meta = env.openDB<Buffer, string>('meta', { encoding: 'binary', compression: false });
    return new ChunkDb(path, env, data, meta);
  }

  /**
   * Writes `value` under `key` in the background; resolves once committed, rejects with a
   * `StorageError` (`DTASK_STORAGE_FULL` when the disk or the map is full) when the commit fails,
   * and without writing (`DTASK_STORAGE_CLOSED`) once the store is closing: lmdb-js would run
   * a batch queued then on the closed environment and abort the process.
   */
  write(key: string, value: Encoded): Promise<void> {
    if (this.closed) return Promise.reject(closedError(this.path, key));
    const data = this.data.put(key, value.bytes as Buffer);
    const meta = this.meta.put(key, Buffer.of(value.tag));
    this.handleBatchCommit();
    const bytes = value.bytes.byteLength;
    return Promise.all([handled(data), handled(meta)]).then(
      () => undefined,
      async (error) => {
        throw storageErrorOf(await commitCause(error), key, { path: this.path, bytes });
      },
    );
  }

  /**
   * Whether the filesystem holding the store has room for a value of `bytes` and what LMDB
   * needs besides (true when that cannot be told). A spill that would not fit is not tried.
   */
  hasRoomFor(bytes: number): boolean {
    const free = freeBytes(this.path);
    return free === undefined || free >= bytes + COMMIT_MARGIN;
  }

  /**
   * lmdb-js starts each event turn's batch with a write of its own whose promise nobody holds;
   * when that batch's commit fails (a full disk), its rejection is unhandled and would end the
   * thread or process. The batch begins in the immediate lmdb-js queued with the first write
   * of the turn, so the one queued here after it finds that promise as the environment's
   * `committed` and handles it.
   */
  private handleBatchCommit(): void {
    if (this.batchChecked) return;
    this.batchChecked = true;
    setImmediate(() => {
      this.batchChecked = false;
      Promise.resolve(this.env.committed).catch(() => {});
    });
  }

  /** Writes `value` under `key` and commits before returning (blocks the thread meanwhile). */
  writeSync(key: string, value: Encoded): void {
    if (this.closed) throw closedError(this.path, key);
    try {
      this.env.transactionSync(() => {
        this.data.putSync(key, value.bytes as Buffer);
        this.meta.putSync(key, Buffer.of(value.tag));
      });
    } catch (error) {
      // A full filesystem may report EIO (a full tmpfs does): its free space tells.
      throw storageErrorOf(error, key, { path: this.path, bytes: value.bytes.byteLength });
    }
  }

  /** The value under `key`, rebuilt (a fresh copy), or `ABSENT`. Synchronous: LMDB reads are memory-mapped. */
  read(key: string): unknown {
    const tag = fastBytes(this.meta, key)?.[0];
    if (tag === undefined) return ABSENT;
    const bytes = fastBytes(this.data, key);
    if (bytes === undefined) return ABSENT;
    return decode(tag, bytes);
  }

  /** Bytes stored under `key` (its value's encoding), or `undefined`. */
  storedBytes(key: string): number | undefined {
    return fastBytes(this.data, key)?.byteLength;
  }

  /** Whether `key` holds a whole entry. */
  has(key: string): boolean {
    return this.meta.doesExist(key);
  }

  /** Removes the entry under `key` in the background (`meta` first); resolves once committed. */
  remove(key: string): Promise<void> {
    if (this.closed) return Promise.resolve();
    const meta = this.meta.remove(key);
    const data = this.data.remove(key);
    this.handleBatchCommit();
    return Promise.all([handled(meta), handled(data)]).then(() => undefined);
  }

  /** Keys of whole entries that start with `prefix`, in key order. */
  keys(prefix: string): string[] {
    return [...this.meta.getKeys({ start: prefix, end: `${prefix}\uffff` })];
  }

  /** Resolves once every write issued so far is committed. */
  async flushed(): Promise<void> {
    if (!this.closed) await this.env.committed;
  }

  /** Releases this `open`; the last one closes the environment. */
  async close(): Promise<void> {
    const shared = opened.get(this.path);
    if (shared !== undefined && --shared.refs > 0) return;
    opened.delete(this.path);
    if (this.closed) return;
    this.closed = true;
    await this.env.close();
  }
}

/** A write of `key` to the store at `path` after its `close` began. */
function closedError(path: string, key: string): StorageError {
  return new StorageError(
    STORE_CLOSED,
    `Storage device 'lmdb' at ${path} is closed: ${JSON.stringify(key)} was not written; ` +
      'write before the context closes',
    { device: 'lmdb', key },
  );
}

/**
 * The bytes under `key` without a copy: lmdb-js's shared read buffer (valid until the next
 * read on this thread), cut to the entry's length (`lastSize`), or a buffer of its own.
 */
function fastBytes(db: Database<Buffer, string>, key: string): Uint8Array | undefined {
  const buffer = db.getBinaryFast(key) as (Buffer & { isGlobal?: boolean }) | undefined;
  if (buffer === undefined) return undefined;
  if (!buffer.isGlobal) return buffer;
  return buffer.subarray(0, (db as unknown as { lastSize: number }).lastSize);
}

/** `write`'s promise of one put, whose failure's `commitError` is handled too (`commitCause`). */
function handled(put: Promise<unknown>): Promise<unknown> {
  put.catch((error) => commitCause(error));
  return put;
}

/**
 * LMDB's "map full", a full disk or a quota, or any failure of a write of `bytes` to a store
 * at `path` whose filesystem has no room left for it (lmdb-js reports a full tmpfs as EIO):
 * `StorageError` `DTASK_STORAGE_FULL`; anything else: `StorageError` `DTASK_STORAGE_IO` with
 * the original as `cause`.
 */
export function storageErrorOf(
  error: unknown,
  key: string,
  write?: { path: string; bytes: number },
): StorageError {
  if (StorageError.isInstance(error)) return error;
  const text = String((error as Error)?.message ?? error);
  const code = (error as { code?: unknown })?.code;
  if (
    /MDB_MAP_FULL|ENOSPC|EDQUOT|No space left/i.test(text) ||
    code === 'ENOSPC' ||
    code === 'EDQUOT' ||
    (write !== undefined && outOfSpace(write.path, write.bytes))
  ) {
    return new StorageError(
      StorageError.FULL,
      `Storage device 'lmdb' is full: writing ${JSON.stringify(key)} failed (${text}); free ` +
        'disk space, give lmdb() a path on a larger disk, or lower what is held',
      { device: 'lmdb', key, cause: error },
    );
  }
  return new StorageError(
    'DTASK_STORAGE_IO',
    `Storage device 'lmdb' could not write ${JSON.stringify(key)}: ${text}`,
    { device: 'lmdb', key, cause: error },
  );
}

import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { sizeOf } from './size-of.js';

/** A value, or a promise of it: what a device method returns, sync or async. Always `await` it. */
export type MaybePromise<T> = T | Promise<T>;

/** Options of `StorageDevice.put`. */
export interface StoragePutOptions {
  /**
   * The caller's measure of the value in bytes (e.g. from `sizeOf`, or known exactly). A
   * device may account this instead of measuring the value itself; a device that stores
   * serialized bytes may account those instead. Must be a non-negative finite number.
   */
  size?: number | undefined;
}

/** What a device holds: `entries` keys, taking `bytes` in all (the sum of `size(key)`). */
export interface StorageUsage {
  entries: number;
  bytes: number;
}

/**
 * Where one process keeps data under string keys (MemPool's `StorageDevice`). The chunk
 * store calls it to hold task results and moved arguments; `@dtask/core` ships the RAM
 * device, `@dtask/lmdb` a disk-backed one. Every device runs the shared conformance suite
 * (`storageDeviceConformance` from `@dtask/core/testing`), which pins what follows.
 *
 * - Methods may be synchronous or return promises; callers `await` every result, so both
 *   kinds are used alike. `size`, `usage` and `capacity` are synchronous, for the scheduler's
 *   cost model.
 * - Keys are non-empty strings of at most 200 UTF-16 units (about what LMDB allows); any
 *   characters. `put` of another key throws `ArgumentError`.
 * - Every device stores at least: numbers (NaN and infinities too), strings, booleans,
 *   bigints, `null`, `undefined`, Dates, ArrayBuffers, typed arrays, `Buffer`s, and arrays,
 *   plain objects, Maps and Sets of these, nested (what `v8.serialize` keeps). `get` returns
 *   a value of the same type with the same contents (a `Buffer` stays a `Buffer`, a view
 *   keeps only its own bytes). It may be the very object that was put (RAM) or a copy (a
 *   serializing device); a caller must not mutate a value it put, nor rely on a copy.
 * - `size(key)` is a whole number of bytes, more than 0 for a non-empty value;
 *   `usage().bytes` is always the sum of `size(key)` over the keys held, and never more
 *   than `capacity`.
 * - A fresh device holds nothing. After `close()` it must not be used again.
 */
export interface StorageDevice {
  /** Short device family name used in messages and the registry, e.g. `ram`, `lmdb`. */
  readonly name: string;
  /** Bytes the device may hold; `undefined` means no limit. */
  readonly capacity?: number | undefined;

  /**
   * Stores `value` under `key`, replacing any entry there (usage then counts only the new
   * one). Throws `StorageError` `DTASK_STORAGE_FULL`, changing nothing, when the entry would
   * take the device past its capacity.
   */
  put(key: string, value: unknown, options?: StoragePutOptions): MaybePromise<void>;

  /** The value stored under `key`. Throws (or rejects with) `StorageError` `DTASK_STORAGE_MISSING` if absent. */
  get(key: string): MaybePromise<unknown>;

  /** Whether an entry exists under `key` (also when its value is `undefined`). */
  has(key: string): MaybePromise<boolean>;

  /** Removes the entry under `key` and frees its bytes; true if there was one, false otherwise. */
  delete(key: string): MaybePromise<boolean>;

  /** Bytes the entry under `key` takes in this device's accounting; `undefined` if absent. */
  size(key: string): number | undefined;

  /** Entries held and the bytes they take; a fresh object each call. */
  usage(): StorageUsage;

  /**
   * Releases what the device holds open (files, handles, memory). Calling it twice is
   * harmless. Devices with nothing to release may leave it out.
   */
  close?(): Promise<void>;
}

/** The longest key every device accepts, in UTF-16 units (LMDB's limit is 1978 UTF-8 bytes). */
export const MAX_STORAGE_KEY_LENGTH = 200;

/**
 * Throws `ArgumentError` unless `key` is a string of 1 to `MAX_STORAGE_KEY_LENGTH` units.
 * Called by every device's `put`, so that all devices accept and refuse the same keys.
 */
export function assertStorageKey(key: unknown, device: string): asserts key is string {
  if (typeof key === 'string' && key.length > 0 && key.length <= MAX_STORAGE_KEY_LENGTH) return;
  const got = typeof key === 'string' ? `a string of length ${key.length}` : typeof key;
  throw new ArgumentError(
    `Storage device '${device}': a key must be a non-empty string of at most ` +
      `${MAX_STORAGE_KEY_LENGTH} characters (got ${got})`,
  );
}

/**
 * The bytes a `put` accounts for: `options.size` rounded up to whole bytes, or the value
 * measured by `sizeOf`. Checks the key (`assertStorageKey`) and the size first. Called by
 * every device's `put`, so that all devices accept and measure alike.
 * @throws ArgumentError for a bad key, or a size that is not a non-negative finite number.
 */
export function storagePutSize(
  device: string,
  key: unknown,
  value: unknown,
  options?: StoragePutOptions,
): number {
  assertStorageKey(key, device);
  const given = options?.size;
  if (given === undefined) return sizeOf(value);
  if (typeof given !== 'number' || !Number.isFinite(given) || given < 0) {
    throw new ArgumentError(
      `Storage device '${device}' put(${JSON.stringify(key)}): options.size must be a ` +
        `non-negative finite number of bytes (got ${describeValue(given)}); leave it out to measure the value`,
    );
  }
  // Whole bytes keep running totals exact however many puts and deletes there are.
  return Math.ceil(given);
}

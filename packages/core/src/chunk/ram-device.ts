import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { StorageError } from '../errors/storage-error.js';
import {
  type StorageDevice,
  type StoragePutOptions,
  type StorageUsage,
  storagePutSize,
} from './storage-device.js';

/** Options of `new RamDevice(options)`. */
export interface RamDeviceOptions {
  /** Bytes (as `sizeOf` or `put`'s `size` counts them) the device may hold; leave out for no limit. */
  capacity?: number | undefined;
}

const OPTION_NAMES: readonly string[] = ['capacity'];

interface Entry {
  value: unknown;
  size: number;
}

/**
 * The default storage device: values kept in this process's memory, by reference (MemPool's
 * CPU RAM device). The chunk store of every process uses one unless a plugin registers
 * another. All methods are synchronous; `get` returns the very object that was `put`, so it
 * costs nothing and copies nothing. Sizes come from `sizeOf` unless `put` is given one. With a
 * `capacity`, a `put` that would pass it throws `StorageError` `DTASK_STORAGE_FULL` and
 * changes nothing.
 */
export class RamDevice implements StorageDevice {
  /** Always `ram`. */
  readonly name = 'ram';
  /** Bytes the device may hold; `undefined` means no limit. */
  readonly capacity: number | undefined;
  readonly #entries = new Map<string, Entry>();
  #bytes = 0;

  /** Throws `ArgumentError` for an unknown option or a capacity that is not a positive finite number. */
  constructor(options: RamDeviceOptions = {}) {
    if (typeof options !== 'object' || options === null) {
      throw new ArgumentError(
        `RamDevice options must be an object (got ${describeValue(options)})`,
      );
    }
    for (const name of Object.keys(options)) {
      if (!OPTION_NAMES.includes(name)) {
        throw new ArgumentError(
          `RamDevice has no option '${name}'; the options are: ${OPTION_NAMES.join(', ')}`,
        );
      }
    }
    const { capacity } = options;
    if (
      capacity !== undefined &&
      (typeof capacity !== 'number' || !Number.isFinite(capacity) || capacity <= 0)
    ) {
      throw new ArgumentError(
        `RamDevice options.capacity must be a positive finite number of bytes (got ${describeValue(capacity)}); leave it out for no limit`,
      );
    }
    this.capacity = capacity;
  }

  /** Stores `value` by reference under `key`, replacing what was there. */
  put(key: string, value: unknown, options?: StoragePutOptions): void {
    const size = storagePutSize(this.name, key, value, options);
    const old = this.#entries.get(key);
    const bytes = this.#bytes - (old === undefined ? 0 : old.size) + size;
    if (this.capacity !== undefined && bytes > this.capacity) {
      throw StorageError.full(this.name, key, size, this.#bytes, this.capacity);
    }
    if (old === undefined) {
      this.#entries.set(key, { value, size });
    } else {
      old.value = value;
      old.size = size;
    }
    this.#bytes = bytes;
  }

  /** The object stored under `key` (not a copy); throws `DTASK_STORAGE_MISSING` if absent. */
  get(key: string): unknown {
    const entry = this.#entries.get(key);
    if (entry === undefined) throw StorageError.missing(this.name, key);
    return entry.value;
  }

  /** Whether `key` holds an entry, even one whose value is `undefined`. */
  has(key: string): boolean {
    return this.#entries.has(key);
  }

  /** Drops the entry under `key` (the value is then garbage, unless referenced elsewhere). */
  delete(key: string): boolean {
    const entry = this.#entries.get(key);
    if (entry === undefined) return false;
    this.#entries.delete(key);
    this.#bytes -= entry.size;
    return true;
  }

  /** The bytes accounted for `key`: `put`'s `size` rounded up, else `sizeOf(value)` at put time. */
  size(key: string): number | undefined {
    return this.#entries.get(key)?.size;
  }

  /** Entries held and their accounted bytes. */
  usage(): StorageUsage {
    return { entries: this.#entries.size, bytes: this.#bytes };
  }

  /** Drops every entry, so the values can be collected. */
  close(): Promise<void> {
    this.#entries.clear();
    this.#bytes = 0;
    return Promise.resolve();
  }
}

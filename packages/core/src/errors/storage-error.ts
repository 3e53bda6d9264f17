import { DTaskError, type DTaskErrorOptions } from './dtask-error.js';

/**
 * Codes a `StorageError` carries. The two named ones are the contract every device uses;
 * a plugin may add its own under the same prefix (e.g. `DTASK_STORAGE_IO`), and
 * `StorageError.isInstance` still recognises them.
 */
export type StorageErrorCode =
  | 'DTASK_STORAGE_MISSING'
  | 'DTASK_STORAGE_FULL'
  | `DTASK_STORAGE_${string}`;

/** Options of a `StorageError`: which device and key it is about, and the cause. */
export interface StorageErrorOptions extends DTaskErrorOptions {
  /** The `name` of the device that threw. */
  device?: string | undefined;
  /** The key the failed call was about. */
  key?: string | undefined;
}

const PREFIX = 'DTASK_STORAGE';

/**
 * What a `StorageDevice` throws (or rejects with) when it cannot do what was asked:
 * `DTASK_STORAGE_MISSING` from `get` of a key it does not hold, `DTASK_STORAGE_FULL` from a
 * `put` that would pass its capacity. Thrown by devices (the RAM device, `@dtask/lmdb`);
 * caught by the chunk store and the scheduler, which branch on `code`.
 */
export class StorageError extends DTaskError {
  /** The class name, fixed so that minified or bundled copies keep it. */
  override readonly name: string = 'StorageError';
  /** `get` of a key that was never put, or was deleted. */
  static readonly MISSING = 'DTASK_STORAGE_MISSING';
  /** A `put` that would take the device past its capacity; nothing was changed. */
  static readonly FULL = 'DTASK_STORAGE_FULL';

  declare readonly code: StorageErrorCode;
  /** The `name` of the device that threw, when known. */
  readonly device: string | undefined;
  /** The key the failed call was about, when known. */
  readonly key: string | undefined;

  constructor(code: StorageErrorCode, message: string, options: StorageErrorOptions = {}) {
    super(code, message, options);
    this.device = options.device;
    this.key = options.key;
  }

  /**
   * The error every device throws for `get` of an absent key, so that all devices word it
   * alike. Called by device implementations.
   */
  static missing(device: string, key: string): StorageError {
    return new StorageError(
      StorageError.MISSING,
      `Storage device '${device}' holds no entry under key ${JSON.stringify(key)}: it was ` +
        'never put, or was deleted; check the key, and that the data was not freed before use',
      { device, key },
    );
  }

  /**
   * The error every device throws for a `put` that does not fit. `needed` is the size of
   * the entry, `used` and `capacity` the device's bytes before the put. Called by devices.
   */
  static full(
    device: string,
    key: string,
    needed: number,
    used: number,
    capacity: number,
  ): StorageError {
    return new StorageError(
      StorageError.FULL,
      `Storage device '${device}' is full: putting ${JSON.stringify(key)} (${needed} bytes) ` +
        `with ${used} of its ${capacity} bytes in use would pass its capacity; delete entries ` +
        'or give the device a larger capacity',
      { device, key },
    );
  }

  /**
   * Cross-copy `instanceof`: true for any dtask error whose code starts with
   * `DTASK_STORAGE`, from any copy of the package or any plugin.
   */
  static override isInstance(error: unknown): error is StorageError {
    return DTaskError.isInstance(error) && error.code.startsWith(PREFIX);
  }
}

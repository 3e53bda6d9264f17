import { ArgumentError } from '@dtask/core';
import { checkOptions, describeValue, type OptionsShape } from '@dtask/core/plugin';

/** Which chunks leave memory first when a process passes its memory limit. */
export type SpillPolicy = 'lru' | 'mru';

/** Options of `lmdb(options)`. */
export interface LmdbOptions {
  /**
   * Directory of the LMDB store, shared by every thread and process that names it. Leave it
   * out for a temporary store in the OS temp dir, removed when the plugin closes.
   */
  path?: string;
  /**
   * Bytes of chunks each process may hold in memory (results kept by its worker threads and
   * values in the `lmdb` device, counted by `sizeOf`); past it, chunks spill to LMDB.
   */
  memoryLimit: number;
  /** Bytes of spilled chunks the store may hold on disk; leave it out for no limit. */
  diskLimit?: number;
  /** `lru` (default): least recently used chunks spill first; `mru`: most recently used. */
  policy?: SpillPolicy;
  /**
   * Commit to disk with fsync (survives a power cut). Default false: commits reach the OS
   * (they survive a killed process) without waiting for the disk, which is much faster.
   */
  durable?: boolean;
  /**
   * @internal Set by the plugin in its `spec`, so that the threads of one process share one
   * byte budget and one set of counters. Not for users.
   */
  sharedCounters?: SharedArrayBuffer;
}

/** Options after validation, with defaults filled in. */
export interface ResolvedLmdbOptions {
  path: string | undefined;
  memoryLimit: number;
  diskLimit: number | undefined;
  policy: SpillPolicy;
  durable: boolean;
  sharedCounters: SharedArrayBuffer | undefined;
}

const SHAPE: OptionsShape<keyof LmdbOptions> = {
  known: ['path', 'memoryLimit', 'diskLimit', 'policy', 'durable', 'sharedCounters'],
  notObject: () =>
    'lmdb(options): options must be an object such as { memoryLimit: 512 * 2 ** 20 }',
  // The message lists the options users pass (not sharedCounters).
  unknownKey: (key) =>
    `lmdb(options): unknown option '${key}'; the options are path, memoryLimit, diskLimit, policy, durable`,
};

function positiveBytes(value: unknown, name: string, required: boolean): number | undefined {
  if (value === undefined && !required) return undefined;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw new ArgumentError(
      `lmdb({ ${name} }): ${name} must be a positive finite number of bytes (got ${describeValue(value)})` +
        (required ? ', e.g. lmdb({ memoryLimit: 512 * 2 ** 20 })' : '; leave it out for no limit'),
    );
  }
  return value;
}

/**
 * Checks `lmdb(options)` at the call: unknown keys, limits that are not positive numbers and
 * unknown policies are `ArgumentError`s naming the option and what to pass instead.
 */
export function validateLmdbOptions(options: LmdbOptions): ResolvedLmdbOptions {
  checkOptions(options, SHAPE);
  const { path, policy = 'lru', durable = false, sharedCounters } = options;
  if (path !== undefined && (typeof path !== 'string' || path === '')) {
    throw new ArgumentError(
      'lmdb({ path }): path must be a non-empty directory path; leave it out for a temporary store',
    );
  }
  if (policy !== 'lru' && policy !== 'mru') {
    throw new ArgumentError(
      `lmdb({ policy }): unknown policy ${JSON.stringify(policy)}; use 'lru' (least recently used spills first) or 'mru'`,
    );
  }
  if (typeof durable !== 'boolean') {
    throw new ArgumentError(
      `lmdb({ durable }): durable must be a boolean (got ${describeValue(durable)})`,
    );
  }
  if (sharedCounters !== undefined && !(sharedCounters instanceof SharedArrayBuffer)) {
    throw new ArgumentError('lmdb({ sharedCounters }) is internal: leave it out');
  }
  return {
    path,
    memoryLimit: positiveBytes(options.memoryLimit, 'memoryLimit', true)!,
    diskLimit: positiveBytes(options.diskLimit, 'diskLimit', false),
    policy,
    durable,
    sharedCounters,
  };
}

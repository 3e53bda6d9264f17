import { ArgumentError, type DTask, StorageError } from '@dtask/core';
import type { OptionNormalizer } from '@dtask/core/plugin';
import { checkpointKey } from './checkpoint-key.js';
import { ABSENT, type ChunkDb } from './chunk-db.js';
import { encode } from './codec.js';

/**
 * What the `lmdb` plugin accepts for the task options `checkpoint` and `restore`, besides
 * Dagger's functions (which keep working as core calls them):
 * - `true`: keep (or look up) the result under a stable hash of the function and its inputs;
 * - `{ key: 'name' }`: under a key the user gives (unique per result);
 * - `false`: none.
 */
export type CheckpointOption = boolean | { key: string } | ((...args: never[]) => unknown);

/** The key prefix of checkpoints in the LMDB store (spilled chunks use `s:` and `d:`). */
export const CHECKPOINT_PREFIX = 'c:';

const MAX_KEY = 1000;

/**
 * Saves and restores task results in LMDB under checkpoint keys (Dagger's `checkpoint` and
 * `restore` options), so that a pipeline run again after a crash skips the tasks whose
 * results were kept. The scheduler calls the functions these options become on the main
 * thread: `restore` before a task runs (a saved value completes it without running),
 * `checkpoint` once it succeeded. A local result is committed before its dependents start; a
 * result held by a worker is fetched and written in the background (`flush()` waits for it).
 */
export class Checkpoints {
  private readonly writes = new Set<Promise<void>>();

  constructor(private readonly db: Promise<ChunkDb>) {}

  /** The normaliser the plugin registers for `checkpoint`. */
  readonly checkpointOption: OptionNormalizer = (value, name) =>
    this.normalize(value, name, (key) => (task, result) => this.save(task, result, key));

  /** The normaliser the plugin registers for `restore`. */
  readonly restoreOption: OptionNormalizer = (value, name) =>
    this.normalize(value, name, (key) => (task) => this.restore(task, key));

  private readonly byDefault = new Map<string, unknown>();

  private normalize(
    value: unknown,
    name: string,
    make: (key: string | undefined) => (task: DTask<unknown>, result?: unknown) => unknown,
  ): unknown {
    if (typeof value === 'function' || value === false) return value === false ? undefined : value;
    if (value === true) {
      let f = this.byDefault.get(name);
      if (f === undefined) this.byDefault.set(name, (f = make(undefined)));
      return f;
    }
    const key = (value as { key?: unknown } | null)?.key;
    if (
      typeof value === 'object' &&
      value !== null &&
      Object.keys(value).length === 1 &&
      typeof key === 'string' &&
      key.length > 0 &&
      key.length <= MAX_KEY
    ) {
      return make(key);
    }
    throw new ArgumentError(
      `Option '${name}' must be true (key: a hash of the function and its inputs), ` +
        `{ key: 'a non-empty string of at most ${MAX_KEY} characters' }, false, or a function ` +
        `(Dagger's form); got ${describe(value)}`,
    );
  }

  /** The saved result of `task`, or `undefined` (then it runs). */
  restore(task: DTask<unknown>, given?: string): unknown {
    const key = checkpointKey(task, given);
    return typeof key === 'string' ? this.read(key) : key.then((k) => this.read(k));
  }

  /** Keeps `result` (a value, or a worker's handle to it) under the key of `task`. */
  save(task: DTask<unknown>, result: unknown, given?: string): void | Promise<void> {
    const key = checkpointKey(task, given);
    if (typeof key === 'string' && !isRemote(result)) {
      // Committed now, before any dependent starts: a crash from here on keeps it.
      return this.writeNow(key, result);
    }
    const write = Promise.all([key, isRemote(result) ? result.fetch() : result]).then(
      ([k, value]) => this.writeNow(k, value),
    );
    const tracked = write.finally(() => this.writes.delete(tracked));
    this.writes.add(tracked);
    return tracked;
  }

  /** Resolves once every checkpoint started so far is written. */
  async flush(): Promise<void> {
    while (this.writes.size > 0) await Promise.allSettled([...this.writes]);
  }

  private read(key: string): unknown | Promise<unknown> {
    const got = (db: ChunkDb) => {
      const value = db.read(CHECKPOINT_PREFIX + key);
      return value === ABSENT ? undefined : value;
    };
    return this.opened ? got(this.opened) : this.db.then(got);
  }

  private writeNow(key: string, value: unknown): void | Promise<void> {
    const encoded = encode(value);
    if (encoded === undefined) {
      throw new StorageError(
        'DTASK_STORAGE_UNSUPPORTED',
        `dtask lmdb: cannot checkpoint a ${describe(value)} (functions, class instances and ` +
          'shared memory cannot be stored); return plain data, typed arrays or Buffers',
        { device: 'lmdb', key },
      );
    }
    if (this.opened) return this.opened.writeSync(CHECKPOINT_PREFIX + key, encoded);
    return this.db.then((db) => db.writeSync(CHECKPOINT_PREFIX + key, encoded));
  }

  private opened: ChunkDb | undefined;

  /** Lets reads and writes be synchronous once the store is open. */
  ready(db: ChunkDb): void {
    this.opened = db;
  }
}

function isRemote(v: unknown): v is { fetch(): Promise<unknown> } {
  // A worker's `RemoteResult`, recognised by shape so that any copy of core matches.
  return (
    typeof v === 'object' &&
    v !== null &&
    typeof (v as { fetch?: unknown }).fetch === 'function' &&
    typeof (v as { isLost?: unknown }).isLost === 'function' &&
    'processor' in v
  );
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (typeof value === 'object') return value.constructor?.name ?? 'object';
  return typeof value;
}

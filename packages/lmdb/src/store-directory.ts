import { existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { StorageError } from '@dtask/core';

/**
 * Makes directory `dir` and its missing parents, one at a time. Not `mkdirSync(dir, { recursive:
 * true })`: in Node 20 that loops forever where `mkdir` fails with ENOENT under a parent that
 * exists (a path under /proc), and a store's set-up must fail, not hang.
 */
export function makeStoreDirectory(dir: string): void {
  const missing: string[] = [];
  for (let p = resolve(dir); !existsSync(p); p = dirname(p)) {
    missing.push(p);
    if (dirname(p) === p) break;
  }
  for (let i = missing.length - 1; i >= 0; i--) {
    try {
      mkdirSync(missing[i] as string);
    } catch (error) {
      // Made meanwhile by another thread or process opening the same store.
      if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
    }
  }
}

/** Why the store at `dir` could not be made or opened, as a `StorageError` saying what to do. */
export function storeOpenError(dir: string, error: unknown): StorageError {
  if (StorageError.isInstance(error)) return error;
  const text = String((error as Error)?.message ?? error);
  return new StorageError(
    'DTASK_STORAGE_IO',
    `lmdb({ path }): cannot open a store at ${JSON.stringify(dir)} (${text}); give lmdb() the ` +
      'path of a writable directory, or no path for a temporary one',
    { device: 'lmdb', cause: error },
  );
}

import { existsSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './__fixtures__/temp-db.js';
import { makeStoreDirectory, storeOpenError } from './store-directory.js';

describe('the store directory', () => {
  it('is made with its missing parents, and an existing one is left as it is', () => {
    const root = tempDir();
    const dir = join(root, 'a', 'b', 'c');
    makeStoreDirectory(dir);
    expect(statSync(dir).isDirectory()).toBe(true);
    makeStoreDirectory(dir);
    expect(existsSync(dir)).toBe(true);
  });

  it('under a file fails with the errno, which storeOpenError turns into a StorageError', () => {
    const root = tempDir();
    const file = join(root, 'file');
    writeFileSync(file, 'x');
    let thrown: unknown;
    try {
      makeStoreDirectory(join(file, 'db'));
    } catch (e) {
      thrown = e;
    }
    expect((thrown as { code?: string }).code).toBe('ENOTDIR');
    const error = storeOpenError(join(file, 'db'), thrown);
    expect(error.code).toBe('DTASK_STORAGE_IO');
    expect(error.message).toMatch(/give lmdb\(\) the path of a writable directory/);
    expect(error.cause).toBe(thrown);
  });
});

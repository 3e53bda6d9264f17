// Test helpers: LMDB stores in fresh temporary directories, removed after each test file.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll } from 'vitest';
import { ChunkDb } from '../chunk-db.js';
import { LmdbDevice, type LmdbDeviceOptions } from '../lmdb-device.js';

const dirs: string[] = [];

afterAll(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory under the OS temp dir, removed after the test file. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-lmdb-test-'));
  dirs.push(dir);
  return dir;
}

/** An `LmdbDevice` on a store of its own; closing the device closes the store too. */
export function deviceOnTempDb(options: Omit<LmdbDeviceOptions, 'db'>): LmdbDevice {
  const db = ChunkDb.open(tempDir());
  const device = new LmdbDevice({ ...options, db });
  const close = device.close.bind(device);
  device.close = async () => {
    await close();
    await (await db).close();
  };
  return device;
}

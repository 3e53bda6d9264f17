// Test helpers: LMDB stores in fresh temporary directories, each removed when the test that made
// it has finished.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { onTestFinished } from 'vitest';
import { ChunkDb } from '../chunk-db.js';
import { LmdbDevice, type LmdbDeviceOptions } from '../lmdb-device.js';

/**
 * A fresh directory under the OS temp dir, removed once the calling test has finished (after its
 * `afterEach` hooks, which close what it left open). Registered per call: a hook at this
 * module's top level would serve only the first test file of a process that files share.
 */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-lmdb-test-'));
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
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

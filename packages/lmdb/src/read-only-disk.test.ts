// A store path on a read-only filesystem (a real tmpfs remounted read-only): the mount point
// itself, a directory that exists on it and one still to be made are each refused by `ready()`
// with DTASK_STORAGE_IO naming that path and what to give instead; closing the context works.
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { Context, StorageError } from '@dtask/core';
import { afterAll, describe, expect, it } from 'vitest';
import { mountSmallDisk } from './__fixtures__/small-disk.js';
import { lmdb } from './lmdb-plugin.js';

const disk = mountSmallDisk(1024 * 1024);
if (disk.path !== undefined) {
  mkdirSync(`${disk.path}/existing`);
  execFileSync('mount', ['-o', 'remount,ro', disk.path], { stdio: 'ignore' });
} else {
  console.warn(`read-only store tests skipped: ${disk.why}`);
}
afterAll(() => {
  if (disk.path !== undefined) disk.unmount();
});

describe.skipIf(disk.path === undefined)('lmdb({ path }) on a read-only filesystem', () => {
  it.each(['', '/existing', '/new/deeper'])(
    'refuses %s with an error naming the path',
    async (under) => {
      const path = `${disk.path}${under}`;
      const ctx = new Context({ plugins: [lmdb({ path, memoryLimit: 1 << 16 })] });
      const error = await ctx.ready().then(
        () => undefined,
        (e: unknown) => e,
      );
      await ctx.close();
      expect(error).toBeInstanceOf(StorageError);
      expect((error as StorageError).code).toBe('DTASK_STORAGE_IO');
      expect((error as Error).message).toContain(`"${path}"`);
      expect((error as Error).message).toContain('writable directory');
    },
  );
});

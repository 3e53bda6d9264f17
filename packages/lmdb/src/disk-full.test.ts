// A full disk under the store, on a real small filesystem (a 2 MiB tmpfs): spills that do not
// fit leave their chunks in memory, the graph finishes with every value right, and the full
// disk is reported as DTASK_STORAGE_FULL (a `spillFailed` log event, and a warning a plain
// program prints). A commit LMDB itself fails on the full disk rejects with the same code and
// leaves no unhandled rejection behind (which would end the thread that spilled).
import { spawn as spawnProcess } from 'node:child_process';
import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  Context,
  disableLogging,
  enableLogging,
  everywhere,
  fetchLogs,
  StorageError,
} from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { mountSmallDisk } from './__fixtures__/small-disk.js';
import { ChunkDb } from './chunk-db.js';
import { encode } from './codec.js';
import { lmdb } from './lmdb-plugin.js';

const KiB = 1024;
const MiB = 1024 * KiB;
const TASKS_URL = new URL('./__fixtures__/tasks.mjs', import.meta.url);
type Tasks = typeof import('./__fixtures__/tasks.mjs');

const disk = mountSmallDisk(2 * MiB);
if (disk.path === undefined) console.warn(`disk-full tests skipped: ${disk.why}`);
afterAll(() => {
  if (disk.path !== undefined) disk.unmount();
});
let stores = 0;
const storePath = () => `${disk.path}/store-${stores++}`;
afterEach(() => {
  // Each test starts on an empty disk.
  const root = disk.path;
  if (root === undefined) return;
  for (const name of readdirSync(root)) rmSync(join(root, name), { recursive: true, force: true });
});

/** `promise`, or a rejection saying what had not happened after `ms`. */
function within<T>(promise: Promise<T>, ms: number, what: () => string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`hung: ${what()} after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

describe.skipIf(disk.path === undefined)('lmdb on a full disk (a 2 MiB tmpfs)', () => {
  it('256 tasks over 8 MiB of results, 256 KiB in memory: all settle right, DTASK_STORAGE_FULL is logged', async () => {
    const plugin = lmdb({ path: storePath(), memoryLimit: 256 * KiB });
    const ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
    enableLogging();
    try {
      fetchLogs();
      await ctx.ready();
      await everywhere(TASKS_URL, ctx);
      const tasks = (await import('./__fixtures__/tasks.mjs')) as Tasks;
      const n = 8 * KiB; // 64 KiB per block, 128 blocks: 8 MiB
      const blocks = Array.from({ length: 128 }, (_, i) => ctx.spawn(tasks.block, i, n));
      let settled = 0;
      const sums = blocks.map((b) => ctx.spawn(tasks.total, b).finally(() => settled++));
      const got = await within(Promise.all(sums), 60_000, () => `${settled} of 128 sums settled`);
      const tri = (n * (n - 1)) / 2;
      expect(got).toEqual(got.map((_, i) => n * i + tri));
      const stats = plugin.stats();
      expect(stats.spills).toBeGreaterThan(0);
      expect(stats.spillFailures).toBeGreaterThan(0);
      // Threads send their events with their reports: wait for one.
      let failures: string[] = [];
      const deadline = Date.now() + 10_000;
      while (failures.length === 0 && Date.now() < deadline) {
        failures = fetchLogs({ clear: false })
          .filter((e) => e.kind === 'spillFailed')
          .map((e) => e.detail ?? '');
        if (failures.length === 0) await new Promise((r) => setTimeout(r, 20));
      }
      expect(failures.length).toBeGreaterThan(0);
      expect(failures.every((d) => d.startsWith('DTASK_STORAGE_FULL'))).toBe(true);
    } finally {
      disableLogging();
      await ctx.close();
    }
  }, 90_000);

  it('a plain program on the full disk finishes, right, and warns with DTASK_STORAGE_FULL', async () => {
    const script = fileURLToPath(new URL('./__fixtures__/full-disk-main.mjs', import.meta.url));
    const { code, out, err } = await new Promise<{ code: unknown; out: string; err: string }>(
      (resolve) => {
        const child = spawnProcess(process.execPath, [script, storePath()], {
          stdio: ['ignore', 'pipe', 'pipe'],
        });
        let out = '';
        let err = '';
        child.stdout.on('data', (d) => (out += d));
        child.stderr.on('data', (d) => (err += d));
        const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
        child.on('exit', (code, signal) => {
          clearTimeout(timer);
          resolve({ code: code ?? signal, out, err });
        });
      },
    );
    expect(code, `stdout: ${out}\nstderr: ${err.slice(-2000)}`).toBe(0);
    const result = JSON.parse(out.trim().split('\n').at(-1)!);
    expect(result.ok).toBe(true);
    expect(result.settled).toBe(128);
    expect(result.stats.spillFailures).toBeGreaterThan(0);
    expect(err).toContain('[DTASK_STORAGE_FULL] Warning: dtask lmdb: a chunk could not be spilled');
  }, 90_000);

  it('a commit LMDB fails on the full disk rejects with DTASK_STORAGE_FULL, nothing unhandled', async () => {
    const unhandled: unknown[] = [];
    const onUnhandled = (reason: unknown) => unhandled.push(reason);
    process.on('unhandledRejection', onUnhandled);
    const db = await ChunkDb.open(storePath());
    try {
      const value = encode(new Float64Array(8 * KiB))!;
      let failure: unknown;
      // Written one by one past what the disk holds (the spilling store would check first).
      for (let i = 0; i < 64 && failure === undefined; i++) {
        await db.write(`k${i}`, value).catch((error) => (failure = error));
      }
      expect(StorageError.isInstance(failure)).toBe(true);
      expect((failure as StorageError).code).toBe('DTASK_STORAGE_FULL');
      await new Promise((r) => setTimeout(r, 200)); // unhandled rejections surface by now
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', onUnhandled);
      await db.close();
    }
  }, 60_000);

  it('a checkpoint that does not fit warns with DTASK_STORAGE_FULL; the task keeps its value (as in Dagger)', async () => {
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      await using ctx = new Context({
        plugins: [lmdb({ path: storePath(), memoryLimit: 64 * MiB })],
      });
      await ctx.ready();
      // 4 MiB of random bytes (they do not compress) on a 2 MiB disk.
      const value = await ctx.spawn({ checkpoint: { key: 'big' } }, () => {
        const bytes = new Uint8Array(4 * MiB);
        for (let i = 0; i < bytes.length; i += 65536) {
          crypto.getRandomValues(bytes.subarray(i, i + 65536));
        }
        return bytes;
      });
      expect(value.byteLength).toBe(4 * MiB);
      await within(
        (async () => {
          while (!warnings.some((w) => /checkpoint/.test(w.message))) {
            await new Promise((r) => setTimeout(r, 20));
          }
        })(),
        10_000,
        () => `a checkpoint warning (got: ${warnings.map((w) => w.message).join(' | ')})`,
      );
      const warned = warnings.find((w) => /checkpoint/.test(w.message))!;
      expect(warned.message).toMatch(/DTASK_STORAGE_FULL|is full/);
      expect(warned.message).not.toMatch(/DTASK_STORAGE_IO/);
    } finally {
      process.off('warning', onWarning);
    }
  }, 60_000);
});

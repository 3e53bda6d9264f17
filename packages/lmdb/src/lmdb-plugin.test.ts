// The lmdb plugin with real worker threads, real processes and real LMDB files: a working set
// larger than memory, stores shared by processes, temporary stores, checkpoints across a
// crash, and a store that survives kill -9 in the middle of writing.
import { type ChildProcess, spawn as spawnProcess } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  ArgumentError,
  Context,
  disableLogging,
  enableLogging,
  everywhere,
  fetchLogs,
  scope,
} from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, describe, expect, it } from 'vitest';
import { tempDir } from './__fixtures__/temp-db.js';
import { ChunkDb } from './chunk-db.js';
import { lmdb } from './lmdb-plugin.js';

const fixture = (name: string) => fileURLToPath(new URL(`./__fixtures__/${name}`, import.meta.url));
const TASKS_URL = new URL('./__fixtures__/tasks.mjs', import.meta.url);
type Tasks = typeof import('./__fixtures__/tasks.mjs');

const KiB = 1024;
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc)
  console.warn('one lmdb test skipped: it needs node --expose-gc (vitest.config.ts passes it)');
const MiB = 1024 * KiB;

const contexts: Context[] = [];
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.close();
});

async function rig(options: Parameters<typeof lmdb>[0]) {
  const plugin = lmdb(options);
  const ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
  contexts.push(ctx);
  await ctx.ready();
  await everywhere(TASKS_URL, ctx);
  const tasks = (await import('./__fixtures__/tasks.mjs')) as Tasks;
  return { ctx, plugin, tasks };
}

/** Runs `node <script> ...args` to its end; resolves to its stdout, rejects on failure. */
function run(script: string, args: string[], timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawnProcess(process.execPath, [fixture(script), ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (err += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve(out);
      else
        reject(
          Object.assign(
            // Its output says how far it got (a result line is printed before the context closes).
            new Error(`${script} ended with ${code ?? signal}: ${err}; stdout: ${out.slice(-400)}`),
            {
              code,
              signal,
              out,
            },
          ),
        );
    });
  });
}

/** Resolves when `check()` holds, polling; rejects after 5 s. */
async function until(check: () => boolean): Promise<void> {
  const end = Date.now() + 5000;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** Resolves once `child` printed a line equal to `line`. */
function printed(child: ChildProcess, line: string): Promise<void> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.split('\n').includes(line)) resolve();
    });
    child.on('exit', (code) => reject(new Error(`exited (${code}) before printing ${line}`)));
  });
}

describe('lmdb plugin', () => {
  it('bad options are ArgumentErrors at the call', () => {
    expect(() => lmdb({ memoryLimit: 0 })).toThrow(ArgumentError);
    expect(() => lmdb({ memoryLimit: 1, diskLimit: -1 })).toThrow(/diskLimit/);
    expect(() => lmdb({ memoryLimit: 1, policy: 'fifo' as 'lru' })).toThrow(/unknown policy/);
  });

  it('a working set 4× the memory limit, processed by a DAG on worker threads: right result, peak memory under the limit plus 3 blocks per thread', async () => {
    const memoryLimit = 4 * MiB;
    const doubles = 32 * KiB; // 256 KiB blocks
    const blockBytes = doubles * 8;
    const count = 64; // 16 MiB of blocks, and 8 MiB of their pairwise sums
    const { ctx, plugin, tasks } = await rig({ memoryLimit });
    const made = Array.from({ length: count }, (_, i) => ctx.spawn(tasks.block, i, doubles));
    const sums = Array.from({ length: count / 2 }, (_, i) =>
      ctx.spawn(tasks.add, made[i], made[count - 1 - i]),
    );
    // Every block is read again after all were made: the early ones come back from disk.
    const totals = await Promise.all([...made, ...sums].map((t) => ctx.spawn(tasks.total, t)));
    const tri = (doubles * (doubles - 1)) / 2;
    expect(totals).toEqual([
      ...made.map((_, i) => doubles * i + tri),
      ...sums.map(() => doubles * (count - 1) + 2 * tri),
    ]);
    // The last spills may still be committing.
    const spillsAtLeast = count + count / 2 - memoryLimit / blockBytes;
    await until(() => plugin.stats().spills >= spillsAtLeast);
    // A chunk counts in memory until its write commits: once the writes in flight are done,
    // the process is under its limit (asserted below, with the figures, if it never gets there).
    await until(() => plugin.stats().bytesInMemory <= memoryLimit).catch(() => {});
    const stats = plugin.stats();
    // The blocks are still referenced (by `made`, `sums`), so they are all held somewhere.
    expect(stats.bytesInMemory + stats.bytesOnDisk).toBeGreaterThanOrEqual(
      (count + count / 2) * blockBytes,
    );
    expect(stats.bytesInMemory).toBeLessThanOrEqual(memoryLimit);
    expect(stats.unspills).toBeGreaterThan(0);
    expect(stats.misses).toBe(stats.unspills);
    expect(stats.hits).toBeGreaterThan(0);
    // Slack: each of the 2 threads may hold a task's two inputs and its output beyond the
    // limit while it runs, and a chunk counts in memory until its write has committed.
    const slack = 2 * 3 * blockBytes;
    expect(stats.peakBytesInMemory).toBeLessThanOrEqual(memoryLimit + slack);
  }, 60_000);

  it("spills and unspills on worker threads appear in the main thread's log", async () => {
    const { ctx, plugin, tasks } = await rig({ memoryLimit: 64 * KiB });
    enableLogging();
    try {
      fetchLogs();
      const made = Array.from({ length: 8 }, (_, i) => ctx.spawn(tasks.block, i, 4 * KiB));
      await Promise.all(made.map((t) => t.wait()));
      // 256 KiB made against a 64 KiB limit: the early blocks are on disk before they are read.
      await until(() => plugin.stats().spills >= 6);
      await Promise.all(made.map((t) => ctx.spawn(tasks.total, t)));
      await until(() => fetchLogs({ clear: false }).some((e) => e.kind === 'unspill'));
      const events = fetchLogs().filter((e) => e.kind === 'spill' || e.kind === 'unspill');
      expect(events.some((e) => e.kind === 'spill')).toBe(true);
      for (const e of events) {
        expect(['thread:1:2', 'thread:1:3']).toContain(e.processor);
        expect(e.bytes).toBe(32 * KiB);
        expect(e.time).toBeGreaterThan(Date.now() - 60_000);
      }
    } finally {
      disableLogging();
    }
  }, 30_000);

  it.runIf(gc)(
    'spilled chunks are freed from disk once nothing references them',
    async () => {
      const { ctx, plugin, tasks } = await rig({ memoryLimit: 64 * KiB });
      await (async () => {
        const made = Array.from({ length: 16 }, (_, i) => ctx.spawn(tasks.block, i, 4 * KiB));
        await Promise.all(made.map((t) => ctx.spawn(tasks.total, t)));
        expect(plugin.stats().bytesOnDisk).toBeGreaterThan(0);
      })();
      // The handles are gone: the scheduler releases the results and the threads free them.
      for (
        let i = 0;
        i < 100 && plugin.stats().bytesOnDisk + plugin.stats().bytesInMemory > 0;
        i++
      ) {
        gc?.();
        await new Promise((r) => setTimeout(r, 20));
      }
      expect(plugin.stats()).toMatchObject({ bytesOnDisk: 0, bytesInMemory: 0 });
    },
    30_000,
  );

  it('results of tasks run on the main thread count against the limit and spill too', async () => {
    const { ctx, plugin } = await rig({ memoryLimit: 256 * KiB });
    const main = { scope: scope({ worker: 1, thread: 1 }) };
    const made = Array.from({ length: 8 }, (_, i) =>
      ctx.spawn(main, (k: number) => new Float64Array(32 * KiB).fill(k), i),
    );
    await Promise.all(made.map((t) => t.wait()));
    await until(() => plugin.stats().spills >= 6);
    const stats = plugin.stats();
    expect(stats.bytesInMemory).toBeLessThanOrEqual(256 * KiB);
    expect(stats.bytesInMemory + stats.bytesOnDisk).toBeGreaterThanOrEqual(8 * 256 * KiB);
    const firsts = await Promise.all(made.map((t) => t.then((xs) => xs[32 * KiB - 1])));
    expect(firsts).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    expect(plugin.stats().unspills).toBeGreaterThan(0);
  }, 30_000);

  it('closing one context keeps the spilled chunks of another context on the same store (regression: the close swept by process)', async () => {
    const path = tempDir();
    const a = lmdb({ path, memoryLimit: 64 * KiB });
    const b = lmdb({ path, memoryLimit: 64 * KiB });
    const ctxA = new Context({ plugins: [a] });
    const ctxB = new Context({ plugins: [b] });
    contexts.push(ctxB);
    await Promise.all([ctxA.ready(), ctxB.ready()]);
    const made = Array.from({ length: 8 }, (_, i) =>
      ctxB.spawn((k: number) => new Float64Array(4 * KiB).fill(k), i),
    );
    await Promise.all(made.map((t) => t.wait()));
    await until(() => b.stats().spills >= 4);
    await ctxA.close();
    const firsts = await Promise.all(made.map((t) => t.then((xs) => xs[0])));
    expect(firsts).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  }, 30_000);

  it('two processes with two threads each share one store: both get the right results, and the store is empty once they are done', async () => {
    const path = tempDir();
    const args = [path, String(2 * MiB), '32', String(16 * KiB)]; // 4 MiB of blocks, 2 of sums
    const outputs = await Promise.all([run('spill-main.mjs', args), run('spill-main.mjs', args)]);
    const results = outputs.map((o) => JSON.parse(o.trim().split('\n').at(-1)!));
    expect(results[0].pid).not.toBe(results[1].pid);
    for (const { got, expected, stats } of results) {
      expect(got).toEqual(expected);
      expect(stats.spills).toBeGreaterThan(0);
      expect(stats.unspills).toBeGreaterThan(0);
    }
    const db = await ChunkDb.open(path);
    try {
      expect(db.keys('s:'), 'spilled chunks freed from disk at close').toEqual([]);
      expect(db.keys('d:')).toEqual([]);
    } finally {
      await db.close();
    }
  }, 90_000);

  it('a path where no store can be made fails ready() with a StorageError saying what to do, in a plain program', async () => {
    // Under a file (ENOTDIR), and under /proc, where Node 20's recursive mkdir loops forever.
    const paths = [join(fixture('tasks.mjs'), 'db')];
    if (existsSync('/proc/self')) paths.push('/proc/dtask-no-such/db');
    // The programs side by side: each waits only on itself.
    const outs = await Promise.all(paths.map((path) => run('bad-path-main.mjs', [path], 20_000)));
    for (const [i, path] of paths.entries()) {
      const out = outs[i] as string;
      expect(out).toContain(
        `FAILED StorageError DTASK_STORAGE_IO: lmdb({ path }): cannot open a store at ${JSON.stringify(path)}`,
      );
      expect(out).toContain('give lmdb() the path of a writable directory');
      expect(out).toContain('CLOSED');
      expect(out).toContain('TASK 42');
    }
  }, 60_000);

  it('a temporary store (no path) is removed when the context closes', async () => {
    const { ctx, plugin, tasks } = await rig({ memoryLimit: 64 * KiB });
    const made = Array.from({ length: 8 }, (_, i) => ctx.spawn(tasks.block, i, 4 * KiB));
    await Promise.all(made.map((t) => ctx.spawn(tasks.total, t)));
    await until(() => plugin.stats().spills > 0);
    const { path } = plugin;
    expect(existsSync(path)).toBe(true);
    await ctx.close();
    expect(existsSync(path)).toBe(false);
  }, 30_000);

  it('checkpoints: a pipeline killed mid-run and run again restores finished tasks and runs nothing twice', async () => {
    const path = tempDir();
    const log = join(tempDir(), 'ran.log');
    const crashed = await run('pipeline-main.mjs', [path, log, 'crash']).then(
      () => undefined,
      (e: { signal?: string }) => e,
    );
    expect(crashed?.signal, 'the first run is killed by its crash task').toBe('SIGKILL');
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean).sort()).toEqual([
      'a',
      'b',
      'c',
      'crash',
    ]);
    const out = await run('pipeline-main.mjs', [path, log, 'rerun']);
    expect(JSON.parse(out.trim())).toEqual({ d: 44, e: 440 });
    const ran = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    expect(ran.slice(4), 'the rerun ran only what had not finished').toEqual(['d', 'e']);
    // A third run finds every result: nothing runs at all.
    expect(JSON.parse((await run('pipeline-main.mjs', [path, log, 'rerun'])).trim())).toEqual({
      d: 44,
      e: 440,
    });
    expect(readFileSync(log, 'utf8').split('\n').filter(Boolean)).toEqual(ran);
  }, 90_000);

  it('kill -9 while spilling and checkpointing leaves a store that reopens with every committed chunk intact', async () => {
    // Byte j of entry i is (i + j) % 251 (writer-main.mjs): entry i is this from i % 251 on.
    const pattern = new Uint8Array(MiB + 251);
    for (let j = 0; j < pattern.length; j++) pattern[j] = j % 251;
    const path = tempDir();
    for (let round = 0; round < 3; round++) {
      const child = spawnProcess(process.execPath, [fixture('writer-main.mjs'), path], {
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      await printed(child, 'ready');
      await new Promise((r) => setTimeout(r, 50 + 40 * round)); // in the middle of writing
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGKILL');
      await exited;
      const db = await ChunkDb.open(path);
      try {
        const keys = db.keys('');
        const chunks = keys.filter((k) => k.startsWith('d:'));
        const checkpoints = keys.filter((k) => k.startsWith('c:'));
        expect(chunks.length).toBeGreaterThan(20);
        expect(checkpoints.length).toBeGreaterThan(3);
        // Every entry checked, the wrong ones listed in one expect (one per entry took longer
        // than the reads): its type, its length, then its bytes compared whole (a memcmp), the
        // first wrong byte looked for only when one is.
        const wrong: string[] = [];
        for (const key of keys) {
          const i = Number(key.slice(key.lastIndexOf('-') + 1));
          const value = db.read(key);
          const length = 1024 * (1 + ((i * 37) % 1024));
          if (!(value instanceof Uint8Array)) wrong.push(`${key}: not a Uint8Array`);
          else if (value.length !== length)
            wrong.push(`${key}: ${value.length} bytes, not ${length}`);
          else {
            const expected = pattern.subarray(i % 251, (i % 251) + length);
            if (!Buffer.from(value.buffer, value.byteOffset, length).equals(expected)) {
              const bad = value.findIndex((b, j) => b !== expected[j]);
              wrong.push(`${key}: byte ${bad} is wrong`);
            }
          }
        }
        expect(wrong).toEqual([]);
      } finally {
        await db.close();
      }
    }
    // Opening the plugin on the store frees the chunks of the dead writers; checkpoints stay.
    const { ctx } = await rig({ path, memoryLimit: MiB });
    const db = await ChunkDb.open(path);
    try {
      expect(db.keys('d:')).toEqual([]);
      expect(db.keys('c:').length).toBeGreaterThan(3);
    } finally {
      await db.close();
      await ctx.close();
    }
  }, 90_000);
});

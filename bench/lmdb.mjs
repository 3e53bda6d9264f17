// @dtask/lmdb on the built dist: spill and unspill throughput of 16 MiB chunks
// against raw lmdb put/get of the same bytes in the same run, and a DAG over a working set 4×
// the memory limit against the same job with unlimited memory.
//   node bench/lmdb.mjs [--quick] [--rounds=5] [--check]
// Medians of `rounds` timed runs after one warm-up; prints tables and writes
// bench/results/lmdb.json. --check exits 1 when spill or unspill is under 80% of raw lmdb.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Context, everywhere } from '@dtask/core';
import { ChunkDb, LmdbDevice, lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';
import { open } from 'lmdb';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'lmdb.json');
const { quick, rounds, check } = parseFlags();

const MiB = 2 ** 20;
const TARGET_OF_RAW = 0.8;
const CHUNK = 16 * MiB;
const CHUNKS = quick ? 8 : 24;
const scratch = mkdtempSync(join(os.tmpdir(), 'dtask-bench-lmdb-'));
process.on('exit', () => rmSync(scratch, { recursive: true, force: true }));

/** CHUNKS distinct 16 MiB chunks (made once: their making is not timed). */
const chunks = Array.from({ length: CHUNKS }, (_, i) => new Uint8Array(CHUNK).fill(i + 1));
const totalBytes = CHUNK * CHUNKS;
const gbps = (bytes, ms) => bytes / ms / 1e6;

/** Median of `rounds` runs of `round()` after one warm-up; each returns { write, read } ms. */
async function timeRounds(round) {
  const writes = [];
  const reads = [];
  for (let r = 0; r <= rounds; r++) {
    const { write, read } = await round(r);
    if (r > 0) {
      writes.push(write);
      reads.push(read);
    }
  }
  return { writeMs: median(writes), readMs: median(reads) };
}

// ------------------------------------------------------------ raw lmdb, the same bytes
const raw = await timeRounds(async (r) => {
  const env = open({ path: join(scratch, `raw-${r}`), compression: false, noSync: true });
  const db = env.openDB('data', { encoding: 'binary', compression: false });
  let t0 = performance.now();
  for (let i = 0; i < CHUNKS; i++) await db.put(`k${i}`, chunks[i]);
  const write = performance.now() - t0;
  t0 = performance.now();
  let check = 0;
  for (let i = 0; i < CHUNKS; i++) check += db.getBinary(`k${i}`)[CHUNK - 1];
  const read = performance.now() - t0;
  if (check !== (CHUNKS * (CHUNKS + 1)) / 2) throw new Error('raw lmdb read back wrong bytes');
  await env.close();
  return { write, read };
});

// ------------------------------------------------------------ the lmdb device spilling
// A memory limit of one chunk: every put spills the chunk before it (put resolves once that
// write committed), so CHUNKS puts write CHUNKS - 1 chunks; then each get reads one back
// (an unspill) and the test deletes it, as a consumer done with it would.
const device = await timeRounds(async (r) => {
  const db = ChunkDb.open(join(scratch, `device-${r}`));
  const d = new LmdbDevice({ db, memoryLimit: CHUNK });
  let t0 = performance.now();
  for (let i = 0; i < CHUNKS; i++) await d.put(`k${i}`, chunks[i]);
  const write = ((performance.now() - t0) * CHUNKS) / (CHUNKS - 1);
  d.delete(`k${CHUNKS - 1}`); // the one still in memory
  const spilled = d.counters.snapshot().spills;
  if (spilled !== CHUNKS - 1) throw new Error(`expected ${CHUNKS - 1} spills, got ${spilled}`);
  t0 = performance.now();
  let check = 0;
  for (let i = 0; i < CHUNKS - 1; i++) {
    check += d.get(`k${i}`)[CHUNK - 1];
    d.delete(`k${i}`);
  }
  const read = ((performance.now() - t0) * CHUNKS) / (CHUNKS - 1);
  if (check !== ((CHUNKS - 1) * CHUNKS) / 2) throw new Error('the device read back wrong bytes');
  await d.close();
  await (await db).close();
  return { write, read };
});

const spillRatio = raw.writeMs / device.writeMs;
const unspillRatio = raw.readMs / device.readMs;
console.log(
  `# @dtask/lmdb, ${CHUNKS} chunks of 16 MiB, Node ${process.version}, ${os.cpus().length} cores`,
);
console.log(
  table(
    ['16 MiB chunks', 'write GB/s', 'read GB/s', 'write vs raw', 'read vs raw'],
    [
      [
        'raw lmdb put / getBinary',
        fixed(gbps(totalBytes, raw.writeMs)),
        fixed(gbps(totalBytes, raw.readMs)),
        '1.00×',
        '1.00×',
      ],
      [
        'lmdb device: spill / unspill',
        fixed(gbps(totalBytes, device.writeMs)),
        fixed(gbps(totalBytes, device.readMs)),
        `${fixed(spillRatio)}× ${spillRatio >= TARGET_OF_RAW ? 'PASS' : 'MISS'}`,
        `${fixed(unspillRatio)}× ${unspillRatio >= TARGET_OF_RAW ? 'PASS' : 'MISS'}`,
      ],
    ],
  ),
);
console.log(`target: ≥ ${TARGET_OF_RAW * 100}% of raw lmdb for both`);
console.log('');

// ------------------------------------------------------------ a working set 4× memory
const BLOCKS = quick ? 32 : 64;
const DOUBLES = 128 * 1024; // 1 MiB blocks
const workingSet = (BLOCKS + BLOCKS / 2) * DOUBLES * 8;
const TASKS = new URL('../packages/lmdb/src/__fixtures__/tasks.mjs', import.meta.url);
const memoryLimit = workingSet / 4;

async function dagRun(withLmdb) {
  const plugins = [threads({ count: 2 })];
  const store = withLmdb ? lmdb({ path: join(scratch, 'dag'), memoryLimit }) : undefined;
  if (store) plugins.push(store);
  const ctx = new Context({ plugins });
  await ctx.ready();
  // The same block/add/total tasks as the lmdb package's working-set test.
  await everywhere(TASKS, ctx);
  const tasks = await import(TASKS.href);
  const ms = [];
  let stats;
  for (let r = 0; r <= rounds; r++) {
    store?.resetPeak();
    const before = store?.stats();
    const t0 = performance.now();
    const made = Array.from({ length: BLOCKS }, (_, i) => ctx.spawn(tasks.block, i, DOUBLES));
    const sums = Array.from({ length: BLOCKS / 2 }, (_, i) =>
      ctx.spawn(tasks.add, made[i], made[BLOCKS - 1 - i]),
    );
    const totals = await Promise.all([...made, ...sums].map((t) => ctx.spawn(tasks.total, t)));
    const t = performance.now() - t0;
    const tri = (DOUBLES * (DOUBLES - 1)) / 2;
    if (totals[1] !== DOUBLES + tri || totals.at(-1) !== DOUBLES * (BLOCKS - 1) + 2 * tri) {
      throw new Error('the DAG gave a wrong result');
    }
    if (r > 0) ms.push(t);
    const after = store?.stats();
    // Spills and unspills of this round; the peak since the round began.
    if (after) {
      stats = {
        ...after,
        spills: after.spills - before.spills,
        unspills: after.unspills - before.unspills,
      };
    }
  }
  await ctx.close();
  return { medianMs: median(ms), stats };
}

const unlimited = await dagRun(false);
const limited = await dagRun(true);
const slowdown = limited.medianMs / unlimited.medianMs;
console.log(
  `# DAG on 2 threads: ${BLOCKS} blocks of 1 MiB, ${BLOCKS / 2} pairwise sums, a total of each: ` +
    `${workingSet / MiB} MiB working set`,
);
console.log(
  table(
    ['run', 'ms', 'vs unlimited', 'spills per run', 'unspills per run', 'peak MiB in memory'],
    [
      ['unlimited memory (no lmdb)', fixed(unlimited.medianMs, 0), '1.00×', '', '', ''],
      [
        `memoryLimit ${memoryLimit / MiB} MiB (¼ of it)`,
        fixed(limited.medianMs, 0),
        `${fixed(slowdown)}×`,
        int(limited.stats.spills),
        int(limited.stats.unspills),
        fixed(limited.stats.peakBytesInMemory / MiB, 1),
      ],
    ],
  ),
);

mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  JSON.stringify(
    {
      date: new Date().toISOString(),
      node: process.version,
      cores: os.cpus().length,
      rounds,
      chunks: { count: CHUNKS, bytes: CHUNK, raw, device, spillRatio, unspillRatio },
      workingSet: { bytes: workingSet, memoryLimit, unlimited, limited, slowdown },
    },
    null,
    2,
  ),
);
console.log(`\nwrote ${relative(process.cwd(), resultsFile)}`);
if (check && (spillRatio < TARGET_OF_RAW || unspillRatio < TARGET_OF_RAW)) process.exit(1);

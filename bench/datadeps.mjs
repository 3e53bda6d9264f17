// @dtask/datadeps on the built dist: a tiled Cholesky factorisation on 2 worker threads
// against the same tile code run serially in one thread, with peers scheduling the same tile
// tasks on 2 threads (a scheduler written by hand over raw worker_threads, Piscina, tinypool),
// and seed 002's tree reduction against a serial loop; dtask also on an ordinary (non-shared)
// Float64Array, where datadeps copies tiles in and out; the same dtask tasks running
// @dtask/array's WebAssembly SIMD tile kernels (gemmTile, syrkTile, trsmTile, potrfTile: what a
// DArray's `cholesky` runs) on 2 threads of a context of their own, and numpy.linalg.cholesky
// (LAPACK on all cores) in the same run. (Run on the same 2 threads between the plain runs, the
// SIMD tiles left the plain JavaScript tiles there 25-33% slower: each row has its own threads,
// as each peer has.)
//   node bench/datadeps.mjs [--quick] [--rounds=9] [--warmup=20] [--check]
// Medians of `rounds` timed runs (9 by default: the machine's noise moves single runs by ±3%)
// after `warmup` unmeasured ones (20 by default: with 120 tasks a round, V8 compiles dtask's
// scheduler and datadeps functions through the first 15-20 rounds, and on 2 cores its compiler
// threads take that time from the workers); prints tables and writes
// bench/results/datadeps.json. --check exits 1 when the Cholesky target (≥ 1.8×) is missed or
// a runner's result differs from the serial code's.
import { once } from 'node:events';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { gemmTile, potrfTile, simdKernelsLoaded, syrkTile, trsmTile } from '@dtask/array/kernels';
import { Context } from '@dtask/core';
import {
  addInto,
  cholesky,
  choleskyError,
  choleskySerial,
  gemm,
  potrf,
  spdMatrix,
  syrk,
  treeReduce,
  trsm,
} from '@dtask/datadeps/examples';
import { threads } from '@dtask/threads';
import { handWritten, pooled } from './fixtures/cholesky-peers.mjs';
import { numpyPeer, shareOf } from './numpy-peer.mjs';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'datadeps.json');
const { quick, rounds, warmup, check } = parseFlags(undefined, 9, 20);

const TARGET_CHOLESKY_SPEEDUP = 1.8;
/** How the table names each 2-thread runner. */
const LABELS = {
  dtask: 'spawnDatadeps, 2 worker threads',
  handWritten: 'hand-written scheduler, raw worker_threads, 2 threads',
  piscina: 'Piscina, tasks awaiting their inputs, 2 threads',
  tinypool: 'tinypool, tasks awaiting their inputs, 2 threads',
};
const N = quick ? 1024 : 2048;
const TILE = quick ? 128 : 256;
const ARRAYS = 1000;
const LENGTH = 1000;

/** One timed run of `run()` after `reset()`: milliseconds and the cores it used. */
async function once1(reset, run) {
  await reset();
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  await run();
  const t = performance.now() - t0;
  const c = process.cpuUsage(c0);
  // coresUsed: this process's CPU time (all its threads) ÷ wall time; on a busy machine it
  // shows how much CPU the run actually got.
  return { ms: t, cores: (c.user + c.system) / 1000 / t };
}

/**
 * `rounds` runs of each of `runs` after `warmup` unmeasured ones, interleaved (A, B, A, B, ...)
 * so that a machine that slows down or speeds up affects both alike. Medians per runner.
 */
async function timeInterleaved(reset, runs, warmup = 1) {
  const samples = runs.map(() => ({ ms: [], cores: [] }));
  for (let r = 0; r < warmup + rounds; r++) {
    for (let i = 0; i < runs.length; i++) {
      const { ms, cores } = await once1(reset, runs[i]);
      if (r >= warmup) {
        samples[i].ms.push(ms);
        samples[i].cores.push(cores);
      }
    }
  }
  return samples.map((x) => ({ medianMs: median(x.ms), runsMs: x.ms, coresUsed: median(x.cores) }));
}

/** Median milliseconds of `rounds` runs of `run()` after `warmup` runs; `reset()` before each. */
async function time(reset, run, warmup = 1) {
  return (await timeInterleaved(reset, [run], warmup))[0];
}

const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
const spawn = ctx.spawn.bind(ctx);

// ---------------------------------------------------------------- Cholesky
const original = spdMatrix(N, 1);
const a = { ...original, data: new Float64Array(new SharedArrayBuffer(8 * N * N)) };
const resetA = () => a.data.set(original.data);
const peers = {
  handWritten: await handWritten(a, TILE),
  piscina: await pooled('piscina', a, TILE),
  tinypool: await pooled('tinypool', a, TILE),
};
/** dtask and its peers, each factorising `a` once on 2 threads. */
const threaded = {
  dtask: () => cholesky(a, TILE, spawn),
  ...Object.fromEntries(Object.entries(peers).map(([name, peer]) => [name, peer.run])),
};
// The same tasks running @dtask/array's WebAssembly SIMD tile kernels (what `cholesky` of a
// DArray runs), on 2 threads of their own: the spawn swaps each plain JavaScript tile kernel
// for its SIMD one.
const SIMD_TILES = new Map([
  [potrf, potrfTile],
  [trsm, trsmTile],
  [syrk, syrkTile],
  [gemm, gemmTile],
]);
const simdCtx = new Context({ plugins: [threads({ count: 2 })] });
await simdCtx.ready();
const spawnSimd = (...args) => {
  const at = typeof args[0] === 'function' ? 0 : 1;
  args[at] = SIMD_TILES.get(args[at]) ?? args[at];
  return simdCtx.spawn(...args);
};
const [serialCholesky, ...timedCholesky] = await timeInterleaved(
  resetA,
  [() => choleskySerial(a, TILE), ...Object.values(threaded), () => cholesky(a, TILE, spawnSimd)],
  warmup,
);
const simdCholesky = timedCholesky.pop();
const threadedCholesky = timedCholesky;
const [threadCholesky, ...peerCholesky] = threadedCholesky;
const error = N <= 1024 ? choleskyError(a, original) : undefined;
// Every runner's result, to the bit: the tile operations on each tile run in the same order.
resetA();
choleskySerial(a, TILE);
const expected = a.data.slice();
const identical = {};
for (const [name, run] of Object.entries(threaded)) {
  resetA();
  await run();
  identical[name] = a.data.every((x, i) => Object.is(x, expected[i]));
}
resetA();
await cholesky(a, TILE, spawnSimd);
const simdDelta = a.data.reduce((w, x, i) => Math.max(w, Math.abs(x - expected[i])), 0);
await Promise.all(Object.values(peers).map((peer) => peer.close()));
await simdCtx.close();

// The same factorisation on an ordinary (non-shared) Float64Array: datadeps copies the tiles a
// task reads to its thread and the tiles it writes back (copy-in/copy-out). Fewer rounds (5
// warm-up rounds: the copying code reaches V8's optimising tier in 4-5 rounds).
const plain = { ...original, data: new Float64Array(N * N) };
const resetPlain = () => plain.data.set(original.data);
const PLAIN_ROUNDS = Math.min(rounds, 5);
const plainCholesky = await (async () => {
  const ms = [];
  const cores = [];
  for (let r = 0; r < 5 + PLAIN_ROUNDS; r++) {
    const sample = await once1(resetPlain, () => cholesky(plain, TILE, spawn));
    if (r >= 5) {
      ms.push(sample.ms);
      cores.push(sample.cores);
    }
  }
  return { medianMs: median(ms), runsMs: ms, coresUsed: median(cores) };
})();
identical.dtaskNonShared = plain.data.every((x, i) => Object.is(x, expected[i]));

// ---------------------------------------------------------------- tree reduction
const pristine = Array.from({ length: ARRAYS }, (_, k) =>
  Float64Array.from({ length: LENGTH }, (_, i) => Math.sin(k * LENGTH + i)),
);
const shared = new Float64Array(new SharedArrayBuffer(8 * ARRAYS * LENGTH));
const As = pristine.map((_, k) => shared.subarray(k * LENGTH, (k + 1) * LENGTH));
const resetAs = () => {
  for (let k = 0; k < ARRAYS; k++) As[k].set(pristine[k]);
};
// Small tasks: the steady state takes a few rounds to reach (JIT in three threads), so both
// runners get five warm-up rounds here.
const TREE_WARMUP = 5;
const serialLoop = await time(
  resetAs,
  () => {
    const x = As[0];
    for (let k = 1; k < ARRAYS; k++) {
      const y = As[k];
      for (let i = 0; i < LENGTH; i++) x[i] += y[i];
    }
  },
  TREE_WARMUP,
);
const threadTree = await time(resetAs, () => treeReduce(addInto, As, spawn), TREE_WARMUP);

await ctx.close();

// ---------------------------------------------------------------- the machine's ceiling
// Two threads each factorising a matrix of their own with the serial tile code, at once: how
// much two threads of this machine can do together on these kernels (shared caches, memory).
const ceiling = await (async () => {
  const url = new URL('./fixtures/cholesky-worker.mjs', import.meta.url);
  const workers = [0, 1].map(() => new Worker(url, { workerData: { n: N, tile: TILE } }));
  await Promise.all(workers.map((w) => once(w, 'message')));
  const round = async (ws) => {
    const t0 = performance.now();
    const done = ws.map((w) => once(w, 'message'));
    for (const w of ws) w.postMessage('go');
    await Promise.all(done);
    return performance.now() - t0;
  };
  const one = [];
  const two = [];
  for (let r = 0; r <= rounds; r++) {
    const a = await round(workers.slice(0, 1));
    const b = await round(workers);
    if (r > 0) {
      one.push(a);
      two.push(b);
    }
  }
  await Promise.all(workers.map((w) => w.terminate()));
  return { oneMs: median(one), twoMs: median(two), throughput: (2 * median(one)) / median(two) };
})();

const speedup = serialCholesky.medianMs / threadCholesky.medianMs;
// numpy.linalg.cholesky (LAPACK on all cores) in the same run.
const numpy = numpyPeer('cholesky', N, 'float64', rounds);
const flops = N ** 3 / 3;
/** A row of the Cholesky table: time, rate, cores used and speed-up over the serial code. */
const choleskyRow = (label, sample) => [
  label,
  fixed(sample.medianMs, 0),
  fixed(flops / sample.medianMs / 1e6),
  fixed(sample.coresUsed),
  `${fixed(serialCholesky.medianMs / sample.medianMs)}×`,
];
console.log(
  `\ndatadeps: ${os.cpus().length} CPUs, load ${fixed(os.loadavg()[0])}, median of ${rounds} runs after ${warmup} warm-up rounds\n`,
);
console.log(
  table(
    ['tiled Cholesky', 'ms', 'GFLOP/s', 'cores used', 'vs serial'],
    [
      choleskyRow(`serial tile code, 1 thread (${N}², tiles ${TILE})`, serialCholesky),
      ...Object.keys(threaded).map((name, i) => choleskyRow(LABELS[name], threadedCholesky[i])),
      choleskyRow(
        `spawnDatadeps, 2 worker threads, @dtask/array's ${simdKernelsLoaded() ? 'WebAssembly SIMD' : 'plain JS (no SIMD here)'} tiles`,
        simdCholesky,
      ),
      choleskyRow(
        `spawnDatadeps, 2 worker threads, ordinary (non-shared) memory, median of ${PLAIN_ROUNDS}`,
        plainCholesky,
      ),
      [
        'ceiling: 2 threads, a matrix each, serial code',
        `${fixed(ceiling.twoMs, 0)} for 2`,
        fixed((2 * flops) / ceiling.twoMs / 1e6),
        '',
        `${fixed(ceiling.throughput)}× throughput`,
      ],
    ],
  ),
);
console.log(
  numpy.gflops
    ? `numpy.linalg.cholesky ${N}² (numpy ${numpy.numpy}, all cores): ${fixed(numpy.ms, 0)} ms, ${fixed(numpy.gflops)} GFLOP/s; spawnDatadeps on 2 threads reaches ${shareOf(flops / threadCholesky.medianMs / 1e6, numpy)} of it with the plain JS tiles, ${shareOf(flops / simdCholesky.medianMs / 1e6, numpy)} with the SIMD tiles (max |Δ| from the serial code ${simdDelta.toExponential(1)})`
    : `numpy.linalg.cholesky: skipped, ${numpy.skipped}`,
);
const mismatched = Object.keys(identical).filter((k) => !identical[k]);
console.log(
  mismatched.length === 0
    ? "every runner's result is bit-identical to the serial code's"
    : `results differ from the serial code's: ${mismatched.join(', ')}`,
);
console.log(
  `target ≥ ${TARGET_CHOLESKY_SPEEDUP}×: ${speedup >= TARGET_CHOLESKY_SPEEDUP ? 'met' : 'MISSED'}` +
    (error === undefined ? '' : `; max |L·Lᵀ − A| = ${error.toExponential(1)}`),
);
console.log('');
console.log(
  table(
    [`tree reduction, ${ARRAYS} arrays of ${LENGTH}`, 'ms', 'cores used', 'vs serial loop'],
    [
      [
        'serial loop, 1 thread',
        fixed(serialLoop.medianMs, 2),
        fixed(serialLoop.coresUsed),
        '1.00×',
      ],
      [
        'treeReduce, spawnDatadeps, 2 worker threads',
        fixed(threadTree.medianMs, 2),
        fixed(threadTree.coresUsed),
        `${fixed(serialLoop.medianMs / threadTree.medianMs)}×`,
      ],
    ],
  ),
);

const report = {
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  load: os.loadavg()[0],
  rounds,
  cholesky: {
    n: N,
    tile: TILE,
    serial: serialCholesky,
    threads2: threadCholesky,
    threads2SimdTiles: { ...simdCholesky, maxDeltaFromSerial: simdDelta },
    threads2NonShared: plainCholesky,
    speedup,
    peers: Object.fromEntries(Object.keys(peers).map((name, i) => [name, peerCholesky[i]])),
    identicalToSerial: identical,
    target: TARGET_CHOLESKY_SPEEDUP,
    maxError: error,
    ceiling,
    ...(numpy.ms ? { numpyAllCores: { medianMs: numpy.ms, gflops: numpy.gflops } } : { numpy }),
  },
  treeReduce: { arrays: ARRAYS, length: LENGTH, serialLoop, threads2: threadTree },
};
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
console.log(`results: ${relative(process.cwd(), resultsFile)}`);
if (check && (speedup < TARGET_CHOLESKY_SPEEDUP || mismatched.length > 0)) process.exit(1);

// @dtask/datadeps (issue 4) on the built dist: a tiled Cholesky factorisation on 2 worker threads
// against the same tile code run serially in one thread, and seed 002's tree reduction against
// a serial loop.
//   node bench/datadeps.mjs [--quick] [--rounds=5] [--check]
// Medians of `rounds` timed runs after one warm-up; prints tables and writes
// bench/results/datadeps.json. --check exits 1 when the Cholesky target (≥ 1.8×) is missed.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Context } from '@dtask/core';
import {
  addInto,
  cholesky,
  choleskyError,
  choleskySerial,
  spdMatrix,
  treeReduce,
} from '@dtask/datadeps/examples';
import { threads } from '@dtask/threads';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'datadeps.json');
const { quick, rounds, check } = parseFlags();

const TARGET_CHOLESKY_SPEEDUP = 1.8;
const N = quick ? 1024 : 2048;
const TILE = quick ? 128 : 256;
const ARRAYS = 1000;
const LENGTH = 1000;

/** Median milliseconds of `rounds` runs of `run()` after one warm-up; `reset()` before each. */
async function time(reset, run) {
  const ms = [];
  const cores = [];
  for (let r = 0; r <= rounds; r++) {
    await reset();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const t = performance.now() - t0;
    const c = process.cpuUsage(c0);
    if (r > 0) {
      ms.push(t);
      cores.push((c.user + c.system) / 1000 / t);
    }
  }
  // coresUsed: this process's CPU time (all its threads) ÷ wall time; on a busy machine it
  // shows how much CPU the run actually got.
  return { medianMs: median(ms), runsMs: ms, coresUsed: median(cores) };
}

const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
const spawn = ctx.spawn.bind(ctx);

// ---------------------------------------------------------------- Cholesky
const original = spdMatrix(N, 1);
const a = { ...original, data: new Float64Array(new SharedArrayBuffer(8 * N * N)) };
const resetA = () => a.data.set(original.data);
const serialCholesky = await time(resetA, () => choleskySerial(a, TILE));
const threadCholesky = await time(resetA, () => cholesky(a, TILE, spawn));
const error = N <= 1024 ? choleskyError(a, original) : undefined;

// ---------------------------------------------------------------- tree reduction
const pristine = Array.from({ length: ARRAYS }, (_, k) =>
  Float64Array.from({ length: LENGTH }, (_, i) => Math.sin(k * LENGTH + i)),
);
const shared = new Float64Array(new SharedArrayBuffer(8 * ARRAYS * LENGTH));
const As = pristine.map((_, k) => shared.subarray(k * LENGTH, (k + 1) * LENGTH));
const resetAs = () => {
  for (let k = 0; k < ARRAYS; k++) As[k].set(pristine[k]);
};
const serialLoop = await time(resetAs, () => {
  const x = As[0];
  for (let k = 1; k < ARRAYS; k++) {
    const y = As[k];
    for (let i = 0; i < LENGTH; i++) x[i] += y[i];
  }
});
const threadTree = await time(resetAs, () => treeReduce(addInto, As, spawn));

await ctx.close();

const speedup = serialCholesky.medianMs / threadCholesky.medianMs;
const flops = N ** 3 / 3;
console.log(
  `\ndatadeps: ${os.cpus().length} CPUs, load ${fixed(os.loadavg()[0])}, median of ${rounds} runs\n`,
);
console.log(
  table(
    ['tiled Cholesky', 'ms', 'GFLOP/s', 'cores used', 'vs serial'],
    [
      [
        `serial tile code, 1 thread (${N}², tiles ${TILE})`,
        fixed(serialCholesky.medianMs, 0),
        fixed(flops / serialCholesky.medianMs / 1e6),
        fixed(serialCholesky.coresUsed),
        '1.00×',
      ],
      [
        'spawnDatadeps, 2 worker threads',
        fixed(threadCholesky.medianMs, 0),
        fixed(flops / threadCholesky.medianMs / 1e6),
        fixed(threadCholesky.coresUsed),
        `${fixed(speedup)}×`,
      ],
    ],
  ),
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
    speedup,
    target: TARGET_CHOLESKY_SPEEDUP,
    maxError: error,
  },
  treeReduce: { arrays: ARRAYS, length: LENGTH, serialLoop, threads2: threadTree },
};
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
console.log(`results: ${relative(process.cwd(), resultsFile)}`);
if (check && speedup < TARGET_CHOLESKY_SPEEDUP) process.exit(1);

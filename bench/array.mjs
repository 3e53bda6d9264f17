// @dtask/array on the built dist: a 2048×2048 Float64 blocked matrix product and a
// whole-array sum of DArrays on 2 worker threads, against the same computation in plain JS on
// one thread with the very same block kernels (@dtask/array/kernels) over the same blocks. The
// sum runs both ways: as a small operation (one task per thread holding blocks, the default
// under DEFAULT_SMALL_WORK_ELEMENTS) and with a task per block (setSmallWorkElements(0)),
// interleaved round by round with the plain loop; then a sum of twice the side (4× the
// elements, over the limit: a task per block) against its plain loop.
//   node bench/array.mjs [--quick] [--rounds=3] [--warmup=1] [--check]
// Medians of `rounds` timed runs after `warmup` unmeasured ones; prints a table with the
// speed-up and the matmul's GFLOP/s beside the single-thread figure, and writes
// bench/results/array.json. --quick: 1024×1024. --check exits 1 when the matmul speed-up is
// under 1.8× or a DArray result differs from the plain one.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import {
  Blocks,
  DEFAULT_SMALL_WORK_ELEMENTS,
  distribute,
  setSmallWorkElements,
} from '@dtask/array';
import { combineBlocks, matmulBlocks, reduceBlock } from '@dtask/array/kernels';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'array.json');
const { quick, check, ...flags } = parseFlags(undefined, 3, 1);
let { rounds, warmup } = flags;
const TARGET_MATMUL_SPEEDUP = 1.8;
const N = quick ? 1024 : 2048;
const B = 256;
const KB = N / B;

function random(n, seed) {
  let s = seed;
  return Float64Array.from({ length: n }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

/** Medians of `rounds` runs of `run` after `warmup` ones: ms, cores used (CPU time ÷ wall). */
async function time(run) {
  for (let i = 0; i < warmup; i++) await run();
  const ms = [];
  const cores = [];
  let result;
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    result = await run();
    const t = performance.now() - t0;
    const c = process.cpuUsage(c0);
    ms.push(t);
    cores.push((c.user + c.system) / 1000 / t);
  }
  return { ms: median(ms), cores: median(cores), result };
}

/**
 * Medians of `rounds` runs of each of `runs` after `warmup` rounds, interleaved (A, B, C, A, B,
 * C, ...) so that a machine that slows down slows all of them alike: ms, cores used, result.
 */
async function timeInterleaved(runs) {
  const samples = runs.map(() => ({ ms: [], cores: [], result: undefined }));
  for (let r = 0; r < warmup + rounds; r++) {
    for (let i = 0; i < runs.length; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const result = await runs[i]();
      const t = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (r < warmup) continue;
      samples[i].ms.push(t);
      samples[i].cores.push((c.user + c.system) / 1000 / t);
      samples[i].result = result;
    }
  }
  return samples.map((x) => ({ ms: median(x.ms), cores: median(x.cores), result: x.result }));
}

/** `da.sum()` with the small-operation limit set to `limit` (restored after). */
async function sumWithLimit(da, limit) {
  const previous = setSmallWorkElements(limit);
  try {
    return await da.sum();
  } finally {
    setSmallWorkElements(previous);
  }
}

/** The plain single-threaded product: every result block, one after the other, on this thread. */
function matmulPlain(as, bs) {
  const out = [];
  for (let j = 0; j < KB; j++)
    for (let i = 0; i < KB; i++) {
      const row = Array.from({ length: KB }, (_, p) => as[i + p * KB]);
      const column = Array.from({ length: KB }, (_, p) => bs[p + j * KB]);
      out.push(matmulBlocks('float64', KB, ...row, ...column));
    }
  return out;
}

/** The plain single-threaded sum: each block reduced, then the partial sums combined. */
function sumPlain(as) {
  const all = [0, 1];
  return combineBlocks('sum', undefined, 1, ...as.map((b) => reduceBlock(b, all, 'sum'))).data[0];
}

const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
try {
  const a = distribute(random(N * N, 1), [N, N], new Blocks(B, B), { context });
  const b = distribute(random(N * N, 2), [N, N], new Blocks(B, B), { context });
  // The same blocks (SharedArrayBuffers made on the threads) for the plain runs.
  const as = await Promise.all(a.chunks.map((c) => c.fetch()));
  const bs = await Promise.all(b.chunks.map((c) => c.fetch()));

  const mmPlain = await time(() => matmulPlain(as, bs));
  let product;
  const mmArray = await time(async () => {
    product = a.matmul(b);
    await Promise.all(product.chunks.map((c) => c.wait()));
  });
  // The sum: plain loop, the default (small: one task per thread holding blocks), a task per
  // block; interleaved. Sum rounds are cheap: at least 15 of them. The DArray summed is a second
  // one with the same values whose blocks stay on the threads that made them: fetching `a`'s
  // blocks above moved them all to this thread, where the small path is one task for all 64.
  const sumRounds = Math.max(rounds, 15);
  const summed = distribute(random(N * N, 1), [N, N], new Blocks(B, B), { context });
  await Promise.all(summed.chunks.map((c) => c.wait()));
  const [sPlain, sArray, sPerBlock] = await (async () => {
    const saved = [rounds, warmup];
    [rounds, warmup] = [sumRounds, Math.max(warmup, 5)];
    try {
      return await timeInterleaved([
        () => sumPlain(as),
        () => summed.sum(),
        () => sumWithLimit(summed, 0),
      ]);
    } finally {
      [rounds, warmup] = saved;
    }
  })();
  // A large sum (twice the side, 4× the elements: over the limit, a task per block).
  const L = 2 * N;
  const big = distribute(random(L * L, 3), [L, L], new Blocks(B, B), { context });
  const bigs = await Promise.all(
    distribute(random(L * L, 3), [L, L], new Blocks(B, B), { context }).chunks.map((c) =>
      c.fetch(),
    ),
  );
  await Promise.all(big.chunks.map((c) => c.wait()));
  const [lPlain, lArray] = await (async () => {
    const saved = [rounds, warmup];
    [rounds, warmup] = [Math.max(rounds, 9), Math.max(warmup, 3)];
    try {
      return await timeInterleaved([() => sumPlain(bigs), () => big.sum()]);
    } finally {
      [rounds, warmup] = saved;
    }
  })();

  // Results: the DArray product's blocks against the plain ones; the sums.
  const got = await Promise.all(product.chunks.map((c) => c.fetch()));
  let worst = 0;
  got.forEach((block, k) => {
    const want = mmPlain.result[k].data;
    for (let i = 0; i < want.length; i++)
      worst = Math.max(worst, Math.abs(block.data[i] - want[i]));
  });
  const sumDelta = Math.max(
    Math.abs(sPlain.result - sArray.result),
    Math.abs(sPlain.result - sPerBlock.result),
    Math.abs(lPlain.result - lArray.result),
  );
  const small = L * L <= DEFAULT_SMALL_WORK_ELEMENTS ? 'small' : 'a task per block';
  const gflops = (ms) => (2 * N ** 3) / (ms * 1e6);
  const matmulSpeedup = mmPlain.ms / mmArray.ms;
  const sumSpeedup = sPlain.ms / sArray.ms;
  const rows = [
    [
      `matmul ${N}×${N} f64, blocks ${B}`,
      fixed(mmPlain.ms, 0),
      fixed(gflops(mmPlain.ms)),
      fixed(mmArray.ms, 0),
      fixed(gflops(mmArray.ms)),
      fixed(mmArray.cores),
      `${fixed(matmulSpeedup)}×`,
    ],
    [
      `sum ${N}×${N} f64, blocks ${B}: small (a task per thread holding blocks)`,
      fixed(sPlain.ms, 2),
      '',
      fixed(sArray.ms, 2),
      '',
      fixed(sArray.cores),
      `${fixed(sumSpeedup)}×`,
    ],
    [
      `sum ${N}×${N} f64, blocks ${B}: a task per block (setSmallWorkElements(0))`,
      fixed(sPlain.ms, 2),
      '',
      fixed(sPerBlock.ms, 2),
      '',
      fixed(sPerBlock.cores),
      `${fixed(sPlain.ms / sPerBlock.ms)}×`,
    ],
    [
      `sum ${L}×${L} f64, blocks ${B}: ${small} (default)`,
      fixed(lPlain.ms, 2),
      '',
      fixed(lArray.ms, 2),
      '',
      fixed(lArray.cores),
      `${fixed(lPlain.ms / lArray.ms)}×`,
    ],
  ];
  console.log(
    table(
      [
        'case',
        'plain JS 1 thread ms',
        'GFLOP/s',
        'DArray 2 threads ms',
        'GFLOP/s',
        'cores used',
        'speed-up',
      ],
      rows,
    ),
  );
  console.log(
    `max |Δ| matmul ${worst.toExponential(2)}, |Δ| sum ${sumDelta.toExponential(2)}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores`,
  );
  const verdict = matmulSpeedup >= TARGET_MATMUL_SPEEDUP ? 'met' : 'missed';
  console.log(`matmul speed-up target ≥ ${TARGET_MATMUL_SPEEDUP}×: ${verdict}`);
  mkdirSync(dirname(resultsFile), { recursive: true });
  const result = {
    date: new Date().toISOString(),
    quick,
    N,
    B,
    rounds,
    warmup,
    loadAverage: os.loadavg(),
    figures: {
      matmulGflopsOneThread: gflops(mmPlain.ms),
      matmulGflopsDArrayTwoThreads: gflops(mmArray.ms),
      matmulSpeedup,
      sumSpeedup,
      sumPerBlockSpeedup: sPlain.ms / sPerBlock.ms,
      largeSumSpeedup: lPlain.ms / lArray.ms,
    },
    smallWorkElements: DEFAULT_SMALL_WORK_ELEMENTS,
    matmul: {
      plainOneThread: { medianMs: mmPlain.ms },
      darrayTwoThreads: { medianMs: mmArray.ms },
    },
    sum: {
      rounds: sumRounds,
      plainOneThread: { medianMs: sPlain.ms },
      darrayTwoThreads: { medianMs: sArray.ms },
      darrayTaskPerBlock: { medianMs: sPerBlock.ms },
    },
    largeSum: {
      n: L,
      plainOneThread: { medianMs: lPlain.ms },
      darrayTwoThreads: { medianMs: lArray.ms },
    },
    verdicts: { [`matmul ≥ ${TARGET_MATMUL_SPEEDUP}×`]: verdict },
  };
  writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  if (check && (verdict !== 'met' || worst > 1e-9 || sumDelta > 1e-9)) {
    console.error('target missed or DArray results differ from plain JS');
    process.exitCode = 1;
  }
} finally {
  await context.close();
}

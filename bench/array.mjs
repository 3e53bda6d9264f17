// @dtask/array on the built dist: 2048×2048 blocked matrix products (float64 and float32) and a
// whole-array sum of DArrays on 2 worker threads, against the same computation on one thread
// with the very same block kernels (@dtask/array/kernels: WebAssembly SIMD where the runtime
// has it) over the same blocks, and numpy's product (its BLAS on all cores, a child python3)
// in the same run; one thread's gemm by the chosen kernels against the plain JavaScript kernel
// (matmulBlocksJs). The sum runs both ways: as a small operation (one task per thread holding
// blocks, the default under DEFAULT_SMALL_WORK_ELEMENTS) and with a task per block
// (setSmallWorkElements(0)), interleaved round by round with the plain loop; then a sum of
// twice the side (4× the elements, over the limit: a task per block) against its plain loop;
// beside them the raw peer, two bare worker_threads workers summing halves of the same blocks
// with the same block kernel (bench/raw-sum.mjs): what two threads here do, with no scheduler.
// (bench/array-sum.mjs times the sum alone, beside the plain JavaScript loop and the machine's
// ceiling: in-place SIMD and numpy on one and two threads.)
// Element-wise: `a.mul(2)` and the chain `a.mul(2).add(b).map(f)` (fused: one task per block),
// each against one plain loop over whole arrays, and the chain's time over the one operation's.
// lu and qr of a 2048² DArray (--quick: 512²) against plain single-threaded JS and numpy
// (bench/array-factor.mjs).
//   node bench/array.mjs [--quick] [--rounds=3] [--warmup=1] [--check]
// Medians of `rounds` timed runs after `warmup` unmeasured ones; prints tables with the
// speed-ups, GFLOP/s and shares of numpy's GFLOP/s, and writes bench/results/array.json.
// --quick: 1024×1024. --check exits 1 when the matmul speed-up is under 1.8× or a DArray
// result differs from the one-thread one. DTASK_ARRAY_KERNELS=js runs the plain JS kernels.
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
import {
  combineBlocks,
  matmulBlocks,
  matmulBlocksJs,
  reduceBlock,
  simdKernelsLoaded,
} from '@dtask/array/kernels';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { factorRows, factorSettings } from './array-factor.mjs';
import { numpyPeer, shareOf } from './numpy-peer.mjs';
import { rawSumPool } from './raw-sum.mjs';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'array.json');
const { quick, check, ...flags } = parseFlags(undefined, 3, 1);
let { rounds, warmup } = flags;
const TARGET_MATMUL_SPEEDUP = 1.8;
const TARGET_CHAIN_RATIO = 1.2;
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
function matmulPlain(as, bs, dtype = 'float64') {
  const out = [];
  for (let j = 0; j < KB; j++)
    for (let i = 0; i < KB; i++) {
      const row = Array.from({ length: KB }, (_, p) => as[i + p * KB]);
      const column = Array.from({ length: KB }, (_, p) => bs[p + j * KB]);
      out.push(matmulBlocks(dtype, KB, ...row, ...column));
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
  // The same product in float32 (computed as float32 where the SIMD kernels run).
  const a32 = distribute(random(N * N, 1), [N, N], new Blocks(B, B), { context, dtype: 'float32' });
  const b32 = distribute(random(N * N, 2), [N, N], new Blocks(B, B), { context, dtype: 'float32' });
  const as32 = await Promise.all(a32.chunks.map((c) => c.fetch()));
  const bs32 = await Promise.all(b32.chunks.map((c) => c.fetch()));
  const mmPlain32 = await time(() => matmulPlain(as32, bs32, 'float32'));
  let product32;
  const mmArray32 = await time(async () => {
    product32 = a32.matmul(b32);
    await Promise.all(product32.chunks.map((c) => c.wait()));
  });
  // One thread's gemm: a result block (B × B, inner dimension N) by the kernels this runtime
  // chose and by the plain JavaScript kernel, interleaved.
  const gemmOne = {};
  for (const [dtype, xs, ys] of [
    ['float64', as, bs],
    ['float32', as32, bs32],
  ]) {
    const row = Array.from({ length: KB }, (_, p) => xs[p * KB]);
    const column = Array.from({ length: KB }, (_, p) => ys[p]);
    const [kernel, plainJs] = await timeInterleaved([
      () => matmulBlocks(dtype, KB, ...row, ...column),
      () => matmulBlocksJs(dtype, KB, ...row, ...column),
    ]);
    gemmOne[dtype] = { kernel, plainJs };
  }
  // numpy (its BLAS on all cores) in the same run.
  const np64 = numpyPeer('matmul', N, 'float64', rounds);
  const np32 = numpyPeer('matmul', N, 'float32', rounds);
  // The sum: plain loop, the default (small: one task per thread holding blocks), a task per
  // block; interleaved. Sum rounds are cheap: at least 15 of them. The DArray summed is a second
  // one with the same values whose blocks stay on the threads that made them: fetching `a`'s
  // blocks above moved them all to this thread, where the small path is one task for all 64.
  const sumRounds = Math.max(rounds, 15);
  const summed = distribute(random(N * N, 1), [N, N], new Blocks(B, B), { context });
  await Promise.all(summed.chunks.map((c) => c.wait()));
  // The raw peer: two bare worker_threads workers summing halves of the same blocks.
  const raw = rawSumPool(as);
  // dtask's code finishes compiling after about 8,000 block tasks (docs/performance.md): that
  // many sums' worth of block tasks first, untimed, each way.
  for (let i = 0; i < Math.ceil(8000 / KB ** 2); i++) {
    await summed.sum();
    await sumWithLimit(summed, 0);
  }
  const [sPlain, sArray, sPerBlock, sRaw] = await (async () => {
    const saved = [rounds, warmup];
    [rounds, warmup] = [sumRounds, Math.max(warmup, 5)];
    try {
      return await timeInterleaved([
        () => sumPlain(as),
        () => summed.sum(),
        () => sumWithLimit(summed, 0),
        () => raw.sum(),
      ]);
    } finally {
      [rounds, warmup] = saved;
      await raw.close();
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

  // Element-wise: one operation and a chain of three (fused: one task per block), each against
  // the plain loop computing the same over whole arrays on this thread; interleaved.
  const x = random(N * N, 1);
  const y = random(N * N, 4);
  const other = distribute(y, [N, N], new Blocks(B, B), { context });
  await Promise.all(other.chunks.map((c) => c.wait()));
  const square = (v) => v * v;
  const made = (da) => Promise.all(da.chunks.map((c) => c.wait()));
  const [ePlain1, ePlain3, eArray1, eArray3] = await (async () => {
    const saved = [rounds, warmup];
    [rounds, warmup] = [Math.max(rounds, 9), Math.max(warmup, 3)];
    try {
      return await timeInterleaved([
        () => {
          const out = new Float64Array(x.length);
          for (let i = 0; i < x.length; i++) out[i] = x[i] * 2;
          return out;
        },
        () => {
          const out = new Float64Array(x.length);
          for (let i = 0; i < x.length; i++) out[i] = square(x[i] * 2 + y[i]);
          return out;
        },
        () => made(summed.mul(2)),
        () => made(summed.mul(2).add(other).map(square)),
      ]);
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
  const got32 = await Promise.all(product32.chunks.map((c) => c.fetch()));
  let worst32 = 0;
  got32.forEach((block, k) => {
    const want = mmPlain32.result[k].data;
    for (let i = 0; i < want.length; i++)
      worst32 = Math.max(worst32, Math.abs(block.data[i] - want[i]) / (1 + Math.abs(want[i])));
  });
  const sumDelta = Math.max(
    Math.abs(sPlain.result - sArray.result),
    Math.abs(sPlain.result - sPerBlock.result),
    Math.abs(lPlain.result - lArray.result),
  );
  // The raw peer adds in another order: within rounding of the plain sum.
  const rawDelta = Math.abs(sPlain.result - sRaw.result) / Math.abs(sPlain.result);
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
      `matmul ${N}×${N} f32, blocks ${B}`,
      fixed(mmPlain32.ms, 0),
      fixed(gflops(mmPlain32.ms)),
      fixed(mmArray32.ms, 0),
      fixed(gflops(mmArray32.ms)),
      fixed(mmArray32.cores),
      `${fixed(mmPlain32.ms / mmArray32.ms)}×`,
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
      `sum ${N}×${N} f64, raw worker_threads: 2 threads, halves of the same blocks (no scheduler)`,
      fixed(sPlain.ms, 2),
      '',
      fixed(sRaw.ms, 2),
      '',
      '',
      `${fixed(sPlain.ms / sRaw.ms)}×`,
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
    [
      `a.mul(2) ${N}×${N} f64, blocks ${B} (plain: one loop)`,
      fixed(ePlain1.ms, 2),
      '',
      fixed(eArray1.ms, 2),
      '',
      fixed(eArray1.cores),
      `${fixed(ePlain1.ms / eArray1.ms)}×`,
    ],
    [
      `a.mul(2).add(b).map(f) ${N}×${N} f64, blocks ${B}: fused (plain: one loop)`,
      fixed(ePlain3.ms, 2),
      '',
      fixed(eArray3.ms, 2),
      '',
      fixed(eArray3.cores),
      `${fixed(ePlain3.ms / eArray3.ms)}×`,
    ],
  ];
  console.log(
    table(
      [
        'case',
        'kernels 1 thread ms',
        'GFLOP/s',
        'DArray 2 threads ms',
        'GFLOP/s',
        'cores used',
        'speed-up',
      ],
      rows,
    ),
  );
  const gemmFlops = (ms) => (2 * B * B * N) / (ms * 1e6);
  const kernelName = simdKernelsLoaded() ? 'WebAssembly SIMD' : 'plain JS (no SIMD here)';
  console.log(
    table(
      [
        `one thread's gemm, ${B}² block, inner ${N}`,
        `${kernelName} GFLOP/s`,
        'plain JS GFLOP/s',
        'ratio',
      ],
      ['float64', 'float32'].map((dtype) => [
        dtype,
        fixed(gemmFlops(gemmOne[dtype].kernel.ms)),
        fixed(gemmFlops(gemmOne[dtype].plainJs.ms)),
        `${fixed(gemmOne[dtype].plainJs.ms / gemmOne[dtype].kernel.ms)}×`,
      ]),
    ),
  );
  const peerRow = (label, ms, peer) => [
    label,
    fixed(gflops(ms)),
    peer.gflops ? fixed(peer.gflops) : peer.skipped,
    shareOf(gflops(ms), peer),
  ];
  console.log(
    table(
      ['beside numpy (same run)', 'DArray 2 threads GFLOP/s', 'numpy GFLOP/s', 'share'],
      [
        peerRow(`matmul ${N}×${N} f64`, mmArray.ms, np64),
        peerRow(`matmul ${N}×${N} f32`, mmArray32.ms, np32),
      ],
    ),
  );
  console.log(
    `max |Δ| matmul ${worst.toExponential(2)}, f32 relative ${worst32.toExponential(2)}, |Δ| sum ${sumDelta.toExponential(2)} (raw peer: relative ${rawDelta.toExponential(2)}); load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores`,
  );
  const chainRatio = eArray3.ms / eArray1.ms;
  console.log(
    `chain of 3 ÷ one operation (DArray, 2 threads): ${fixed(chainRatio)} (target ≤ ${TARGET_CHAIN_RATIO}: ${chainRatio <= TARGET_CHAIN_RATIO ? 'met' : 'missed'})`,
  );
  const verdict = matmulSpeedup >= TARGET_MATMUL_SPEEDUP ? 'met' : 'missed';
  console.log(`matmul speed-up target ≥ ${TARGET_MATMUL_SPEEDUP}×: ${verdict}`);
  const factor = await factorRows(context, { ...factorSettings(quick, rounds), random });
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
      matmulF32GflopsOneThread: gflops(mmPlain32.ms),
      matmulF32GflopsDArrayTwoThreads: gflops(mmArray32.ms),
      gemmOneThreadGflops: gemmFlops(gemmOne.float64.kernel.ms),
      gemmOneThreadPlainJsGflops: gemmFlops(gemmOne.float64.plainJs.ms),
      gemmOneThreadF32Gflops: gemmFlops(gemmOne.float32.kernel.ms),
      gemmOneThreadF32PlainJsGflops: gemmFlops(gemmOne.float32.plainJs.ms),
      numpyMatmulGflops: np64.gflops ?? null,
      numpyMatmulF32Gflops: np32.gflops ?? null,
      matmulShareOfNumpy: np64.gflops ? gflops(mmArray.ms) / np64.gflops : null,
      matmulF32ShareOfNumpy: np32.gflops ? gflops(mmArray32.ms) / np32.gflops : null,
      sumSpeedup,
      sumPerBlockSpeedup: sPlain.ms / sPerBlock.ms,
      largeSumSpeedup: lPlain.ms / lArray.ms,
      elementwiseSpeedup: ePlain1.ms / eArray1.ms,
      chainOfThreeSpeedup: ePlain3.ms / eArray3.ms,
      chainOfThreeOverOne: chainRatio,
    },
    kernels: simdKernelsLoaded() ? 'simd' : 'js',
    numpy: { float64: np64, float32: np32 },
    smallWorkElements: DEFAULT_SMALL_WORK_ELEMENTS,
    matmul: {
      plainOneThread: { medianMs: mmPlain.ms },
      darrayTwoThreads: { medianMs: mmArray.ms },
      ...(np64.ms ? { numpyAllCores: { medianMs: np64.ms } } : {}),
    },
    matmulF32: {
      plainOneThread: { medianMs: mmPlain32.ms },
      darrayTwoThreads: { medianMs: mmArray32.ms },
      ...(np32.ms ? { numpyAllCores: { medianMs: np32.ms } } : {}),
    },
    sum: {
      rounds: sumRounds,
      plainOneThread: { medianMs: sPlain.ms },
      darrayTwoThreads: { medianMs: sArray.ms },
      darrayTaskPerBlock: { medianMs: sPerBlock.ms },
      rawWorkerThreads: { medianMs: sRaw.ms },
    },
    largeSum: {
      n: L,
      plainOneThread: { medianMs: lPlain.ms },
      darrayTwoThreads: { medianMs: lArray.ms },
    },
    factor,
    elementwise: {
      rounds: Math.max(rounds, 9),
      plainOneOperation: { medianMs: ePlain1.ms },
      plainChainOfThree: { medianMs: ePlain3.ms },
      darrayOneOperation: { medianMs: eArray1.ms },
      darrayChainOfThree: { medianMs: eArray3.ms },
    },
    verdicts: {
      [`matmul ≥ ${TARGET_MATMUL_SPEEDUP}×`]: verdict,
      [`chain of 3 ≤ ${TARGET_CHAIN_RATIO}× one operation`]:
        chainRatio <= TARGET_CHAIN_RATIO ? 'met' : 'missed',
    },
  };
  writeFileSync(resultsFile, `${JSON.stringify(result, null, 2)}\n`);
  if (
    check &&
    (verdict !== 'met' || worst > 1e-9 || worst32 > 1e-3 || sumDelta > 1e-9 || rawDelta > 1e-12)
  ) {
    console.error('target missed or DArray results differ from plain JS');
    process.exitCode = 1;
  }
} finally {
  await context.close();
}

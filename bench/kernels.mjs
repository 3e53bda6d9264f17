// @dtask/array's block kernels on one thread, timed by CPU time (GFLOP per CPU-second), so that
// a machine shared with other work moves the figures little: the WebAssembly SIMD gemm against
// the plain JavaScript kernel and against @tensorflow/tfjs-backend-wasm's XNNPACK (tf.matMul,
// float32), a tiled Cholesky run serially with the SIMD tiles against datadeps' JavaScript
// tiles, whole-block reductions and fused element-wise chains in SIMD against the plain loop,
// and numpy on one thread (its BLAS limited to one thread, CPU time too) beside, with the shares.
//   node bench/kernels.mjs [--quick] [--rounds=5]
// --quick: n = 1024. Writes bench/results/kernels.json. Where a peer is missing (no python3
// with numpy, no tfjs wasm backend) its row says why.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import {
  fusedBlock,
  fusedBlockSimd,
  gemmTile,
  makeBlock,
  matmulBlocks,
  matmulBlocksJs,
  potrfTile,
  reduceBlocks,
  reduceWhole,
  reduceWholeJs,
  simdKernelsLoaded,
  syrkTile,
  trsmTile,
} from '@dtask/array/kernels';
import * as jsTiles from '@dtask/datadeps/examples';
import { median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { quick, rounds } = parseFlags(undefined, 5);
const N = quick ? 1024 : 2048;
const B = 256;
const KB = N / B;

/** Median GFLOP (or G elements) per CPU-second of `rounds` runs of `run` after one warm-up. */
function perCpuSecond(run, work) {
  run();
  const rates = [];
  for (let r = 0; r < rounds; r++) {
    const c0 = process.cpuUsage();
    run();
    const c = process.cpuUsage(c0);
    rates.push(work / ((c.user + c.system) * 1e3));
  }
  return { median: median(rates), min: Math.min(...rates), max: Math.max(...rates) };
}

/** tf.matMul on tfjs's wasm backend (XNNPACK), or why not. */
async function xnnpack() {
  try {
    const require = createRequire(fileURLToPath(import.meta.resolve('@dtask/array/package.json')));
    const tf = require('@tensorflow/tfjs');
    require('@tensorflow/tfjs-backend-wasm');
    await tf.setBackend('wasm');
    await tf.ready();
    return tf;
  } catch (e) {
    return { skipped: `@tensorflow/tfjs-backend-wasm unavailable (${String(e).slice(0, 80)})` };
  }
}

/** numpy on one thread, or why not. */
function numpyOneThread() {
  const script = join(here, 'fixtures', 'numpy_one_thread.py');
  const one = { OPENBLAS_NUM_THREADS: '1', OMP_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  let last = 'no python3 found';
  for (const py of [process.env.DTASK_BENCH_PYTHON, 'python3', '/usr/bin/python3']) {
    if (!py) continue;
    const r = spawnSync(py, [script, JSON.stringify({ n: N, rounds })], {
      encoding: 'utf8',
      timeout: 600_000,
      env: { ...process.env, ...one },
    });
    if (r.status === 0) return JSON.parse(r.stdout.trim().split('\n').pop());
    last = r.error ? String(r.error) : (r.stderr || '').trim().split('\n').pop();
  }
  return { skipped: `numpy unavailable (${last})` };
}

// gemm: one result block (B × B) with inner dimension N, as a DArray product's task computes.
const gemm = {};
const tf = await xnnpack();
for (const dtype of ['float64', 'float32']) {
  const a = Array.from({ length: KB }, (_, p) => makeBlock(dtype, [B, B], 'rand', 0, 1 + p));
  const b = Array.from({ length: KB }, (_, p) => makeBlock(dtype, [B, B], 'rand', 0, 50 + p));
  const flops = 2 * B * B * N;
  gemm[dtype] = {
    simd: perCpuSecond(() => matmulBlocks(dtype, KB, ...a, ...b), flops),
    plainJs: perCpuSecond(() => matmulBlocksJs(dtype, KB, ...a, ...b), flops),
  };
  if (dtype === 'float32') {
    if (tf.skipped) gemm[dtype].xnnpack = { skipped: tf.skipped };
    else {
      const x = tf.randomUniform([B, N]);
      const y = tf.randomUniform([N, B]);
      gemm[dtype].xnnpack = perCpuSecond(() => {
        const c = tf.matMul(x, y);
        c.dataSync();
        c.dispose();
      }, flops);
    }
  }
}

// Cholesky: tiles of B over an N × N matrix, right-looking, run serially on this thread.
function spd() {
  let s = 7;
  const r = Float64Array.from({ length: N * N }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
  const m = new Float64Array(N * N);
  for (let j = 0; j < N; j++)
    for (let i = j; i < N; i++) {
      const v = i === j ? N : 0.5 * (r[i + j * N] + r[j + i * N]);
      m[i + j * N] = v;
      m[j + i * N] = v;
    }
  return m;
}
const original = spd();
const work = new Float64Array(N * N);
const tile = (i, j) => ({ data: work, shape: [B, B], strides: [1, N], offset: i * B + j * B * N });
function tiledCholesky(t) {
  work.set(original);
  for (let k = 0; k < KB; k++) {
    t.potrf(tile(k, k));
    for (let i = k + 1; i < KB; i++) t.trsm(tile(k, k), tile(i, k));
    for (let i = k + 1; i < KB; i++) {
      t.syrk(tile(i, k), tile(i, i));
      for (let j = k + 1; j < i; j++) t.gemm(tile(i, k), tile(j, k), tile(i, j));
    }
  }
}
const simdTiles = { potrf: potrfTile, trsm: trsmTile, syrk: syrkTile, gemm: gemmTile };
const cholesky = {
  simd: perCpuSecond(() => tiledCholesky(simdTiles), N ** 3 / 3),
  plainJs: perCpuSecond(() => tiledCholesky(jsTiles), N ** 3 / 3),
};

// Reductions over one B × B block (whole, and along one dimension): G elements per CPU-second.
const reductions = {};
for (const dtype of ['float64', 'float32']) {
  const block = makeBlock(dtype, [B, B], 'rand', 0, 9);
  for (const op of ['sum', 'max', 'sumsq']) {
    const times = (f) => () => {
      for (let i = 0; i < 20; i++) f(op, block);
    };
    reductions[`${op} ${dtype}`] = {
      simd: perCpuSecond(times(reduceWhole), 20 * B * B),
      plainJs: perCpuSecond(times(reduceWholeJs), 20 * B * B),
    };
  }
  // Along one dimension (`da.sum({ dims })`'s block part): the SIMD paths against the loop
  // over every element the kernel ran before (the same fold given as a function).
  for (const [op, fold] of [
    ['sum', '(a, x) => a + x'],
    ['max', 'Math.max'],
  ]) {
    for (const dims of [[0], [1]]) {
      const times = (o, src) => () => {
        for (let i = 0; i < 20; i++) reduceBlocks(dims, o, src, block);
      };
      reductions[`${op} dims=${dims[0]} ${dtype}`] = {
        simd: perCpuSecond(times(op, undefined), 20 * B * B),
        plainJs: perCpuSecond(times('fn', fold), 20 * B * B),
      };
    }
  }
}

// Fused element-wise chains over 256² blocks (what a DArray's `a.mul(2)` and
// `a.mul(2).add(b).map((v) => v * v)` run per block): the loop `fusedBlock` compiles against
// the chain's SIMD program (`fusedBlockSimd`), each making its fresh output block as a task
// does. The programs are the ones @dtask/array's fusion makes for these chains.
const loopOf = (inputs, body, dtype) =>
  [
    '((notNumber) => {',
    `return (out, n, scalars, ${inputs}) => {`,
    'const s0 = scalars[0];',
    'for (let i = 0; i < n; i++) {',
    ...body.map((line) => line.replaceAll('ROUND', dtype === 'float32' ? 'Math.fround' : '')),
    '}',
    '};',
    '})',
  ].join('\n');
const elementwiseCases = {
  'a.mul(2) float64': {
    dtype: 'float64',
    program: loopOf('x0', ['const t0 = x0[i] * s0;', 'out[i] = t0;'], 'float64'),
    plan: { float32: false, code: [2, 1, 0, -1], slots: 2, result: 1, scalars: [2] },
    inputs: 1,
  },
  'a.mul(2).add(b).map(v => v * v) float64': {
    dtype: 'float64',
    program: [
      '((notNumber) => {',
      'const f0 = ((v) => v * v);',
      'return (out, n, scalars, x0, x1) => {',
      'const s0 = scalars[0];',
      'for (let i = 0; i < n; i++) {',
      'const t0 = x0[i] * s0;',
      'const t1 = t0 + x1[i];',
      'let t2 = f0(t1);',
      "if (typeof t2 !== 'number') t2 = notNumber(t2, 'float64');",
      'out[i] = t2;',
      '}',
      '};',
      '})',
    ].join('\n'),
    plan: {
      float32: false,
      code: [2, 2, 0, -1, 0, 2, 2, 1, 2, 2, 2, 2],
      slots: 3,
      result: 2,
      scalars: [2],
    },
    inputs: 2,
  },
  'a.mul(0.5).add(b) float32': {
    dtype: 'float32',
    program: loopOf(
      'x0, x1',
      ['const t0 = ROUND(x0[i] * s0);', 'const t1 = ROUND(t0 + x1[i]);', 'out[i] = t1;'],
      'float32',
    ),
    plan: { float32: true, code: [2, 2, 0, -1, 0, 2, 2, 1], slots: 3, result: 2, scalars: [0.5] },
    inputs: 2,
  },
};
const elementwise = {};
for (const [name, { dtype, program, plan, inputs }] of Object.entries(elementwiseCases)) {
  const blocks = Array.from({ length: inputs }, (_, k) =>
    makeBlock(dtype, [B, B], 'rand', 0, 11 + k),
  );
  const scalars = plan.scalars;
  const loop = () => fusedBlock(program, dtype, scalars, ...blocks);
  const simd = () => fusedBlockSimd(program, plan, dtype, scalars, ...blocks);
  const want = loop().data;
  const got = simd().data;
  if (!want.every((v, i) => Object.is(v, got[i])))
    throw new Error(`${name}: SIMD differs from the loop`);
  const times = (f) => () => {
    for (let i = 0; i < 20; i++) f();
  };
  elementwise[name] = {
    simd: perCpuSecond(times(simd), 20 * B * B),
    plainJs: perCpuSecond(times(loop), 20 * B * B),
  };
}

const numpy = numpyOneThread();
const f = (x) => (x?.median === undefined ? 'n/a' : x.median.toFixed(2));
const share = (x, peer) => (peer ? `${((100 * x.median) / peer).toFixed(0)}%` : 'n/a');
console.log(`kernels: ${simdKernelsLoaded() ? 'WebAssembly SIMD' : 'plain JavaScript'}`);
console.log(
  table(
    [
      'one thread, GFLOP per CPU-second',
      'SIMD',
      'plain JS',
      'SIMD ÷ JS',
      'numpy 1 thread',
      'share',
    ],
    [
      ...['float64', 'float32'].map((d) => [
        `gemm ${B}² block, inner ${N}, ${d}`,
        f(gemm[d].simd),
        f(gemm[d].plainJs),
        `${(gemm[d].simd.median / gemm[d].plainJs.median).toFixed(1)}×`,
        numpy.gemm ? numpy.gemm[d].toFixed(2) : 'n/a',
        share(gemm[d].simd, numpy.gemm?.[d]),
      ]),
      [
        `Cholesky ${N}², tiles ${B}, serial`,
        f(cholesky.simd),
        f(cholesky.plainJs),
        `${(cholesky.simd.median / cholesky.plainJs.median).toFixed(1)}×`,
        numpy.cholesky ? numpy.cholesky.toFixed(2) : 'n/a',
        share(cholesky.simd, numpy.cholesky),
      ],
    ],
  ),
);
const xnn = gemm.float32.xnnpack;
console.log(
  xnn.skipped
    ? `XNNPACK: ${xnn.skipped}`
    : `float32 gemm: SIMD ${f(gemm.float32.simd)} vs tfjs-wasm XNNPACK ${f(xnn)} GFLOP per CPU-second (${(gemm.float32.simd.median / xnn.median).toFixed(2)}×)`,
);
console.log(
  table(
    ['reduction of a 256² block, G elements per CPU-second', 'SIMD', 'plain JS', 'SIMD ÷ JS'],
    Object.entries(reductions).map(([k, v]) => [
      k,
      f(v.simd),
      f(v.plainJs),
      `${(v.simd.median / v.plainJs.median).toFixed(1)}×`,
    ]),
  ),
);
console.log(
  table(
    [
      'fused element-wise, 256² blocks, G elements per CPU-second',
      'SIMD',
      'plain loop',
      'SIMD ÷ loop',
    ],
    Object.entries(elementwise).map(([k, v]) => [
      k,
      f(v.simd),
      f(v.plainJs),
      `${(v.simd.median / v.plainJs.median).toFixed(2)}×`,
    ]),
  ),
);
if (numpy.skipped) console.log(`numpy: ${numpy.skipped}`);
const loadAverage = os.loadavg();
console.log(`load average ${loadAverage.map((x) => x.toFixed(1)).join(' ')}`);

mkdirSync(join(here, 'results'), { recursive: true });
writeFileSync(
  join(here, 'results', 'kernels.json'),
  `${JSON.stringify(
    {
      date: new Date().toISOString(),
      quick,
      N,
      B,
      rounds,
      loadAverage,
      kernels: simdKernelsLoaded() ? 'simd' : 'js',
      figures: {
        gemmF64SimdGflopsPerCpuSecond: gemm.float64.simd.median,
        gemmF64PlainJsGflopsPerCpuSecond: gemm.float64.plainJs.median,
        gemmF32SimdGflopsPerCpuSecond: gemm.float32.simd.median,
        gemmF32PlainJsGflopsPerCpuSecond: gemm.float32.plainJs.median,
        gemmF32XnnpackGflopsPerCpuSecond: xnn.median ?? null,
        choleskySimdGflopsPerCpuSecond: cholesky.simd.median,
        choleskyPlainJsGflopsPerCpuSecond: cholesky.plainJs.median,
        numpyOneThreadGemmF64: numpy.gemm?.float64 ?? null,
        numpyOneThreadGemmF32: numpy.gemm?.float32 ?? null,
        numpyOneThreadCholesky: numpy.cholesky ?? null,
      },
      gemm,
      cholesky,
      reductions,
      elementwise,
      numpy,
    },
    null,
    2,
  )}\n`,
);

// GPU benchmark (issue 16): f32 matmul (1024², 2048²) and an elementwise pipeline on each
// TensorFlow.js backend @dtask/gpu-tfjs can load, three ways: as dtask tasks on a TfjsProc (the
// tfjs() plugin's worker thread), with the same backend used directly on this thread, and in
// plain JS on one thread. The ratio dtask / direct is the scheduler's overhead (task dispatch,
// moving the typed arrays in and the result out of the worker thread).
//   node bench/gpu.mjs [--quick] [--rounds=3] [--check]
//   GPU_BENCH_BACKENDS=tensorflow,wasm,cpu node bench/gpu.mjs   (default: tensorflow,wasm)
// cpu is left out by default: a 2048² matmul takes ~30 s on it. --quick: 256², 512².
// Needs a build (`bash scripts/setup.sh`); prints which backend ran and whether it is a GPU.
import process from 'node:process';
import { Context, scope } from '@dtask/core';
import { selectBackend, tfjs } from '@dtask/gpu-tfjs';
import { fixed, median, parseFlags, Results, table } from './shared.mjs';

const { quick, rounds, check } = parseFlags(process.argv.slice(2), 3);
const sizes = quick ? [256, 512] : [1024, 2048];
const STAGES = 8;
const backends = (process.env.GPU_BENCH_BACKENDS ?? 'tensorflow,wasm').split(',');

const matrix = (n, seed) => Float32Array.from({ length: n * n }, (_, i) => ((i * seed) % 13) / 13);

/** Plain JS i-k-j loop over Float32Arrays. */
function plainMatmul(a, b, n) {
  const c = new Float32Array(n * n);
  for (let i = 0; i < n; i++) {
    for (let k = 0; k < n; k++) {
      const aik = a[i * n + k];
      const row = k * n;
      const out = i * n;
      for (let j = 0; j < n; j++) c[out + j] += aik * b[row + j];
    }
  }
  return c;
}

/** The elementwise pipeline in plain JS: STAGES of x ↦ sqrt(|x·1.5 − 0.25|). */
function plainPipeline(x) {
  let y = x;
  for (let s = 0; s < STAGES; s++) y = y.map((v) => Math.sqrt(Math.abs(v * 1.5 - 0.25)));
  return y;
}

async function time(f, n = rounds) {
  await f(); // warm-up
  const ms = [];
  for (let r = 0; r < n; r++) {
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

// Task functions travel to the TfjsProc's thread as source text; they reach TensorFlow.js
// through the `tf` global that thread sets.
const matmulTask = (a, b, n) => {
  const tf = globalThis.tf;
  return tf.matMul(a.reshape([n, n]), b.reshape([n, n]));
};
const stageTask = (x) => x.mul(1.5).sub(0.25).abs().sqrt();

const rows = [];
const results = new Results('gpu', { quick, rounds });
const note = (workload, runner, backend, ms, direct) => {
  rows.push([workload, runner, backend, fixed(ms, 1), direct ? fixed(ms / direct, 2) : '']);
  results.note(workload, `${runner} (${backend})`, ms);
};

for (const n of sizes) {
  const a = matrix(n, 7);
  const b = matrix(n, 5);
  // Plain JS at 2048² takes ~20 s a round here: one round, no warm-up.
  let plainMs;
  if (n >= 2048) {
    const t0 = performance.now();
    plainMatmul(a, b, n);
    plainMs = performance.now() - t0;
  } else plainMs = await time(() => plainMatmul(a, b, n));
  note(`matmul ${n}²`, 'plain JS', 'cpu', plainMs);
  if (n === sizes[0]) {
    const x = matrix(n, 3);
    note(`pipeline ${STAGES}×${n}²`, 'plain JS', 'cpu', await time(() => plainPipeline(x)));
  }
}

for (const backend of backends) {
  let choice;
  try {
    choice = await selectBackend(backend);
  } catch (error) {
    console.log(`${backend}: not measured: ${String(error.message ?? error).slice(0, 160)}…`);
    continue;
  }
  const { tf } = choice;
  const label = `${backend}${choice.gpu ? ' (GPU)' : ' (emulated, not a GPU)'}`;
  const plugin = tfjs({ backend });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  console.log(plugin.describe());
  const onGpu = { scope: scope({ gpu: 0 }) };
  for (const n of sizes) {
    const a = matrix(n, 7);
    const b = matrix(n, 5);
    const direct = await time(async () => {
      const c = tf.tidy(() => tf.matMul(tf.tensor2d(a, [n, n]), tf.tensor2d(b, [n, n])));
      await c.data(); // read back, as the dtask result fetched to the main thread is
      c.dispose();
    });
    const viaDtask = await time(() => ctx.spawn(onGpu, matmulTask, a, b, n));
    note(`matmul ${n}²`, 'tfjs direct', label, direct);
    note(`matmul ${n}²`, 'dtask TfjsProc', label, viaDtask, direct);
    if (check) {
      const got = await ctx.spawn(onGpu, matmulTask, a, b, n);
      const want = plainMatmul(a, b, n);
      const worst = want.reduce(
        (m, v, i) => Math.max(m, Math.abs(v - got[i]) / (1 + Math.abs(v))),
        0,
      );
      if (worst > 1e-3) throw new Error(`matmul ${n}² on ${backend}: relative error ${worst}`);
    }
  }
  const n = sizes[0];
  const x = matrix(n, 3);
  const directPipe = await time(async () => {
    let y = tf.tensor1d(x);
    for (let s = 0; s < STAGES; s++) {
      const next = tf.tidy(() => y.mul(1.5).sub(0.25).abs().sqrt());
      y.dispose();
      y = next;
    }
    await y.data();
    y.dispose();
  });
  const dtaskPipe = await time(async () => {
    // One task per stage; the intermediate tensors stay on the TfjsProc between stages.
    let y = ctx.spawn(onGpu, (v) => v, x);
    for (let s = 0; s < STAGES; s++) y = ctx.spawn(onGpu, stageTask, y);
    await y;
  });
  note(`pipeline ${STAGES}×${n}²`, 'tfjs direct', label, directPipe);
  note(`pipeline ${STAGES}×${n}²`, 'dtask TfjsProc', label, dtaskPipe, directPipe);
  console.log(`stats after the runs: ${JSON.stringify(plugin.stats())}`);
  await ctx.close();
}

console.log(`\nmedian of ${rounds} rounds after 1 warm-up (ms); ratio = dtask / direct:`);
console.log(table(['workload', 'runner', 'backend', 'median ms', 'ratio'], rows));
console.log(`results: ${results.write()}`);
process.exit(0);

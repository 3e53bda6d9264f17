// GPU benchmark: f32 matmul (1024², 2048²) and an elementwise pipeline on each
// TensorFlow.js backend @dtask/gpu-tfjs can load, three ways: as dtask tasks on a TfjsProc (the
// tfjs() plugin's worker thread), with the same backend used directly, and in plain JS on one
// thread. The ratio dtask / direct is the scheduler's overhead (task dispatch, moving the typed
// arrays in and the result out of the worker thread). The direct runs are made in a child
// process of their own (`--direct=<backend>`): headless-gl (webgl) loads in one thread per
// process, so the TfjsProc's thread and a direct user cannot share one. Before each round a
// garbage collection frees the last round's results (dtask frees a result once its dropped
// handle is collected); the pipeline is also timed directly keeping its intermediates until
// the round ends, as dtask does, besides disposing each at once.
//   node bench/gpu.mjs [--quick] [--rounds=3] [--check]
//   GPU_BENCH_BACKENDS=tensorflow,webgl,wasm,cpu node bench/gpu.mjs   (default: tensorflow,webgl,wasm)
// cpu is left out by default: a 2048² matmul takes ~30 s on it. --quick: 256², 512². webgl
// needs an X display (scripts/bench.sh runs this under xvfb-run where it is installed).
// Needs a build (`bash scripts/setup.sh`); prints which backend ran and whether it is a GPU.
import { execFileSync } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { Context, scope } from '@dtask/core';
import { selectBackend, tfjs } from '@dtask/gpu-tfjs';
import {
  fixed,
  matrix,
  median,
  parseFlags,
  plainMatmul,
  plainPipeline,
  Results,
  settle,
  table,
} from './shared.mjs';

const { quick, rounds, check } = parseFlags(
  process.argv.slice(2).filter((a) => !a.startsWith('--direct=')),
  3,
);
const directOnly = process.argv.find((a) => a.startsWith('--direct='))?.slice('--direct='.length);
const sizes = quick ? [256, 512] : [1024, 2048];
const STAGES = 8;
const backends = (process.env.GPU_BENCH_BACKENDS ?? 'tensorflow,webgl,wasm').split(',');

async function time(f, n = rounds) {
  await f(); // warm-up
  const ms = [];
  for (let r = 0; r < n; r++) {
    await settle(); // the last round's dropped handles go, and their tensors with them
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

if (directOnly !== undefined) {
  const choice = await selectBackend(directOnly);
  const figures = await measureDirect(choice.tf);
  console.log(JSON.stringify({ gpu: choice.gpu, module: choice.module, figures }));
  process.exit(0);
}

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
    note(`pipeline ${STAGES}×${n}²`, 'plain JS', 'cpu', await time(() => plainPipeline(x, STAGES)));
  }
}

/**
 * The backend used directly, in this process (the child's side of `--direct`): each matmul
 * size and the pipeline, in ms. Reads the result back, as the dtask result is fetched.
 */
async function measureDirect(tf) {
  const out = {};
  for (const n of sizes) {
    const a = matrix(n, 7);
    const b = matrix(n, 5);
    out[`matmul ${n}²`] = await time(async () => {
      const c = tf.tidy(() => tf.matMul(tf.tensor2d(a, [n, n]), tf.tensor2d(b, [n, n])));
      await c.data();
      c.dispose();
    });
  }
  const x = matrix(sizes[0], 3);
  out[`pipeline ${STAGES}×${sizes[0]}²`] = await time(async () => {
    let y = tf.tensor1d(x);
    for (let s = 0; s < STAGES; s++) {
      const next = tf.tidy(() => y.mul(1.5).sub(0.25).abs().sqrt());
      y.dispose();
      y = next;
    }
    await y.data();
    y.dispose();
  });
  // The same, each intermediate kept until the round ends: what dtask does, whose results are
  // freed when the dropped task handles are collected (between rounds here).
  out[`pipeline ${STAGES}×${sizes[0]}², intermediates kept`] = await time(async () => {
    const kept = [tf.tensor1d(x)];
    for (let s = 0; s < STAGES; s++) {
      const prev = kept.at(-1);
      kept.push(tf.tidy(() => prev.mul(1.5).sub(0.25).abs().sqrt()));
    }
    await kept.at(-1).data();
    for (const t of kept) t.dispose();
  });
  return out;
}

/**
 * Runs `measureDirect` for `backend` in a child process: whether it is a GPU, the module that
 * gave it, and its figures by workload. Throws when the backend cannot be had there.
 */
function directInChild(backend) {
  const args = [fileURLToPath(import.meta.url), `--direct=${backend}`, `--rounds=${rounds}`];
  if (quick) args.push('--quick');
  const stdout = execFileSync(process.execPath, args, { encoding: 'utf8', stdio: 'pipe' });
  return JSON.parse(stdout.trim().split('\n').at(-1));
}

for (const backend of backends) {
  // Not selected in this process: headless-gl may belong to one thread only (the TfjsProc's).
  let choice;
  try {
    choice = directInChild(backend);
  } catch (error) {
    const lines = String(error.stderr || error.message || error).split('\n');
    const why = lines.find((l) => /^\w*Error: /.test(l)) ?? lines[0];
    console.log(`${backend}: not measured: ${why.slice(0, 200)}`);
    continue;
  }
  const label = `${backend}${choice.gpu ? ' (GPU)' : ' (emulated, not a GPU)'}`;
  const direct = choice.figures;
  const plugin = tfjs({ backend });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  console.log(plugin.describe());
  const onGpu = { scope: scope({ gpu: 0 }) };
  for (const n of sizes) {
    const a = matrix(n, 7);
    const b = matrix(n, 5);
    const viaDtask = await time(() => ctx.spawn(onGpu, matmulTask, a, b, n));
    note(`matmul ${n}²`, 'tfjs direct', label, direct[`matmul ${n}²`]);
    note(`matmul ${n}²`, 'dtask TfjsProc', label, viaDtask, direct[`matmul ${n}²`]);
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
  const dtaskPipe = await time(async () => {
    // One task per stage; the intermediate tensors stay on the TfjsProc between stages.
    let y = ctx.spawn(onGpu, (v) => v, x);
    for (let s = 0; s < STAGES; s++) y = ctx.spawn(onGpu, stageTask, y);
    await y;
  });
  const pipe = `pipeline ${STAGES}×${n}²`;
  const keptMs = direct[`${pipe}, intermediates kept`];
  note(pipe, 'tfjs direct', label, direct[pipe]);
  note(pipe, 'tfjs direct, keeping intermediates', label, keptMs);
  note(pipe, 'dtask TfjsProc', label, dtaskPipe, direct[pipe]);
  rows.push([
    pipe,
    '  the same, vs keeping',
    label,
    fixed(dtaskPipe, 1),
    fixed(dtaskPipe / keptMs, 2),
  ]);
  console.log(`stats after the runs: ${JSON.stringify(plugin.stats())}`);
  await ctx.close();
}

console.log(`\nmedian of ${rounds} rounds after 1 warm-up (ms); ratio = dtask / direct:`);
console.log(table(['workload', 'runner', 'backend', 'median ms', 'ratio'], rows));
console.log(`results: ${results.write()}`);
process.exit(0);

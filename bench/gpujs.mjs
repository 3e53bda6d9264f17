// gpu.js benchmark: f32 matmul (1024², 2048²) and an elementwise pipeline in each
// gpu.js mode that starts here, three ways: as dtask tasks on a GpujsProc (the gpujs() plugin's
// worker thread), with gpu.js used directly on one thread, and in plain JS on one thread. The
// ratio dtask / direct is the scheduler's overhead (task dispatch, moving the typed arrays in
// and the result out of the worker thread). Before each round a garbage collection frees the
// last round's results (dtask frees a result once its dropped handle is collected). The direct
// pipeline deletes its intermediate textures as the round ends, as dtask's are freed between
// rounds.
//   node bench/gpujs.mjs [--quick] [--rounds=3] [--check]        (xvfb-run -a for headlessgl)
//   GPUJS_BENCH_MODES=headlessgl,webasm,cpu node bench/gpujs.mjs  (default: headlessgl,cpu)
// Each mode runs in child processes of its own (headless-gl loads in one thread per process).
// --quick: 256², 512². Needs a build (`bash scripts/setup.sh`); prints the mode and device and
// whether it is a GPU (on the project's machines it never is: llvmpipe or plain JS).
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
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

const { quick, rounds, check } = parseFlags(process.argv.slice(2), 3);
const sizes = quick ? [256, 512] : [1024, 2048];
const STAGES = 8;
const GPUJS = new URL('../packages/gpujs/dist/index.js', import.meta.url);
const part = process.env.GPUJS_BENCH_PART; // set in the child processes

/**
 * Median of `rounds` after a warm-up (which compiles the kernels). A 2048² matmul takes 15-35 s
 * a round here off a GPU: at that size, one round after the warm-up.
 */
async function time(f, size = 0) {
  await f();
  const ms = [];
  for (let r = 0; r < (size >= 2048 ? 1 : rounds); r++) {
    await settle(); // the last round's dropped handles go, and their textures with them
    const t = performance.now();
    await f();
    ms.push(performance.now() - t);
  }
  return median(ms);
}

const MATMUL = `function (a, b) {
  let s = 0;
  for (let k = 0; k < this.constants.n; k++) {
    s += a[this.thread.y * this.constants.n + k] * b[k * this.constants.n + this.thread.x];
  }
  return s;
}`;
const STAGE = 'function (x) { return Math.sqrt(Math.abs(x[this.thread.x] * 1.5 - 0.25)); }';

function flat(v) {
  if (!Array.isArray(v)) return v;
  const out = new Float32Array(v.length * v[0].length);
  for (let i = 0; i < v.length; i++) out.set(v[i], i * v[i].length);
  return out;
}

function checkMatmul(got, a, b, n, what) {
  const want = plainMatmul(a, b, n);
  const worst = want.reduce((m, v, i) => Math.max(m, Math.abs(v - got[i]) / (1 + Math.abs(v))), 0);
  if (worst > 1e-3) throw new Error(`${what}: matmul ${n}² relative error ${worst}`);
}

/** Child: gpu.js used directly on this thread, in `mode`. */
async function direct(mode) {
  const require = createRequire(
    fileURLToPath(new URL('../packages/gpujs/package.json', import.meta.url)),
  );
  const { GPU } = require('gpu.js');
  const gpu = new GPU({ mode });
  const out = {};
  for (const n of sizes) {
    const a = matrix(n, 7);
    const b = matrix(n, 5);
    const k = gpu.createKernel(MATMUL, { output: [n, n], constants: { n } });
    out[`matmul ${n}²`] = await time(() => flat(k(a, b)), n);
    if (check) checkMatmul(flat(k(a, b)), a, b, n, `gpu.js ${mode} direct`);
  }
  const n = sizes[sizes.length - 1];
  const x = matrix(n, 3);
  const piped = gpu.createKernel(STAGE, { output: [n * n], pipeline: true, immutable: true });
  const last = gpu.createKernel(STAGE, { output: [n * n] });
  out[`pipeline ${STAGES}×${n}²`] = await time(() => {
    let y = x;
    const made = [];
    for (let s = 0; s < STAGES - 1; s++) made.push((y = piped(y)));
    const r = last(y);
    for (const t of made) t.delete?.();
    return r;
  });
  return out;
}

/** Child: the same work as dtask tasks on a GpujsProc in `mode`. */
async function viaDtask(mode) {
  const { Context } = await import('@dtask/core');
  const { gpujs, kernel } = await import(GPUJS.href);
  const plugin = gpujs({ mode });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  const out = { describe: plugin.describe() };
  for (const n of sizes) {
    const a = matrix(n, 7);
    const b = matrix(n, 5);
    const k = kernel(MATMUL, { output: [n, n], constants: { n } });
    out[`matmul ${n}²`] = await time(() => ctx.spawn(k, a, b), n);
    if (check) checkMatmul(await ctx.spawn(k, a, b), a, b, n, `dtask gpujs ${mode}`);
  }
  const n = sizes[sizes.length - 1];
  const x = matrix(n, 3);
  const piped = kernel(STAGE, { output: [n * n], pipeline: true });
  const last = kernel(STAGE, { output: [n * n] });
  out[`pipeline ${STAGES}×${n}²`] = await time(async () => {
    // One task per stage; intermediates stay textures on the GpujsProc between stages.
    let y = x;
    for (let s = 0; s < STAGES - 1; s++) y = ctx.spawn(piped, y);
    await ctx.spawn(last, y);
  });
  if (check) {
    let y = x;
    for (let s = 0; s < STAGES - 1; s++) y = ctx.spawn(piped, y);
    const got = await ctx.spawn(last, y);
    const want = plainPipeline(x, STAGES);
    const worst = want.reduce((m, v, i) => Math.max(m, Math.abs(v - got[i])), 0);
    if (worst > 1e-3) throw new Error(`dtask gpujs ${mode}: pipeline error ${worst}`);
  }
  out.stats = plugin.stats();
  await ctx.close();
  return out;
}

if (part) {
  const mode = process.env.GPUJS_BENCH_MODE;
  const result = part === 'direct' ? await direct(mode) : await viaDtask(mode);
  process.stdout.write(`\n@@${JSON.stringify(result)}\n`);
  process.exit(0);
}

const rows = [];
const results = new Results('gpujs', { quick, rounds });
const note = (workload, runner, label, ms, base) => {
  rows.push([workload, runner, label, fixed(ms, 1), base ? fixed(ms / base, 2) : '']);
  results.note(workload, `${runner} (${label})`, ms);
};

for (const n of sizes) {
  const a = matrix(n, 7);
  const b = matrix(n, 5);
  note(`matmul ${n}²`, 'plain JS', 'cpu', await time(() => plainMatmul(a, b, n), n));
}
const big = sizes[sizes.length - 1];
const x = matrix(big, 3);
note(`pipeline ${STAGES}×${big}²`, 'plain JS', 'cpu', await time(() => plainPipeline(x, STAGES)));

function child(kind, mode) {
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    {
      env: { ...process.env, GPUJS_BENCH_PART: kind, GPUJS_BENCH_MODE: mode },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'inherit'],
      cwd: fileURLToPath(new URL('.', import.meta.url)),
    },
  );
  return JSON.parse(out.split('\n@@')[1]);
}

for (const mode of (process.env.GPUJS_BENCH_MODES ?? 'headlessgl,cpu').split(',')) {
  let d;
  try {
    d = child('dtask', mode);
  } catch (error) {
    console.log(
      `${mode}: not measured: ${String(error.message ?? error)
        .split('\n')
        .slice(-3)
        .join(' ')
        .slice(0, 300)}`,
    );
    continue;
  }
  console.log(d.describe);
  const first = d.describe.split('\n')[0];
  const label = `${mode}${/\(a GPU\)/.test(first) ? ' (GPU)' : ' (not a GPU)'}`;
  const di = child('direct', mode);
  for (const w of Object.keys(di)) {
    note(w, 'gpu.js direct', label, di[w]);
    note(w, 'dtask GpujsProc', label, d[w], di[w]);
  }
  console.log(`stats after the dtask runs: ${JSON.stringify(d.stats)}`);
}

console.log(
  `\nmedian of ${rounds} rounds after 1 warm-up (ms; 2048²: 1 round); ratio = dtask / direct:`,
);
console.log(table(['workload', 'runner', 'mode', 'median ms', 'ratio'], rows));
console.log(`results: ${results.write()}`);
process.exit(0);

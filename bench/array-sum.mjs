// A DArray's sum beside what this machine can do with the same bytes, in the same run: 2048²
// Float64 (32 MiB) in 256² blocks on 2 worker threads, summed with a task per block
// (setSmallWorkElements(0)) and by default (one task per thread holding blocks), each round
// interleaved with
//   - the plain loop: one JavaScript `for` over one Float64Array, one accumulator (what a user
//     writes; the stencil and heat benchmarks' plain loops are of this kind);
//   - the block kernel on one thread: `reduceBlock` over the same 64 blocks, the very kernel a
//     DArray's block task runs (bench/array.mjs's "plain loop", the figure the sum's target was
//     first set against);
//   - the raw peer: two bare worker_threads workers, each summing half of the blocks with that
//     kernel (bench/raw-sum.mjs): two threads with no scheduler;
//   - the ceiling: an 8-accumulator JavaScript loop, and a WebAssembly SIMD loop (f64x2, four
//     accumulators) reading the array in place from a shared WebAssembly memory, on one thread
//     and on two (halves; bench/fixtures/sum-ceiling-worker.mjs); numpy's sum (pairwise, SIMD,
//     in place) on one and two threads in a child python3, before and after the rounds.
// With --before=DIR (another built checkout), that checkout's DArray sums run too, on threads of
// their own, in the same rounds: before and after alternate within each round.
//   node bench/array-sum.mjs [--quick] [--rounds=30] [--warmup=5] [--before=DIR]
// The DArray cases first run 8,000 block tasks' worth of sums (dtask's code compiled), untimed.
// Prints, per case, the median wall time with its spread (10th–90th percentile), the median CPU
// time of the whole process (all threads: on a loaded machine the steadier reading), GB/s and
// the speed-up over the plain loop and over the block kernel; then the same, back to back: each
// case called 10 times in a row per round (its median call), so that the threads never idle
// between two calls (as in a loop of sums); writes bench/results/array-sum.json.
// --quick: 1024².
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { Blocks, distribute, setSmallWorkElements } from '@dtask/array';
import { combineBlocks, reduceBlock } from '@dtask/array/kernels';
import { Context } from '@dtask/core';
import { threads } from '@dtask/threads';
import { sum8 } from './fixtures/sum8.mjs';
import { rawSumPool } from './raw-sum.mjs';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const beforeArg = process.argv.find((a) => a.startsWith('--before='));
const before = beforeArg === undefined ? undefined : resolve(beforeArg.slice(9));
const { quick, rounds, warmup } = parseFlags(
  process.argv.slice(2).filter((a) => a !== beforeArg),
  30,
  5,
);
const N = quick ? 1024 : 2048;
const B = 256;
const n = N * N;

function random(count, seed) {
  let s = seed;
  return Float64Array.from({ length: count }, () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  });
}

/** The plain loop: one accumulator, one element after the other. */
function sumLoop(x) {
  let s = 0;
  for (let i = 0; i < x.length; i++) s += x[i];
  return s;
}

/** The block kernel on this thread: each block reduced, the partial sums combined in order. */
function sumBlocks(blocks) {
  const all = [0, 1];
  return combineBlocks('sum', undefined, 1, ...blocks.map((b) => reduceBlock(b, all, 'sum')))
    .data[0];
}

/** `count` elements of `x` from `start`, copied into a SharedArrayBuffer of their own. */
function rangeCopy(x, start, count) {
  const copy = new Float64Array(new SharedArrayBuffer(count * 8));
  copy.set(x.subarray(start, start + count));
  return copy.buffer;
}

/** The in-place SIMD sum's module: sum(p, n) of n f64 at byte p of an imported shared memory. */
function ceilingModule() {
  const acc = [0, 1, 2, 3];
  const wat = `(module (import "m" "m" (memory 1 65536 shared))
  (func (export "sum") (param $p i32) (param $n i32) (result f64) (local $end i32)
    ${acc.map((u) => `(local $v${u} v128)`).join(' ')}
    (local.set $end (i32.add (local.get $p) (i32.shl (local.get $n) (i32.const 3))))
    (block $done (loop $next (br_if $done (i32.ge_u (local.get $p) (local.get $end)))
      ${acc.map((u) => `(local.set $v${u} (f64x2.add (local.get $v${u}) (v128.load offset=${16 * u} (local.get $p))))`).join('\n      ')}
      (local.set $p (i32.add (local.get $p) (i32.const 64))) (br $next)))
    (local.set $v0 (f64x2.add (f64x2.add (local.get $v0) (local.get $v1)) (f64x2.add (local.get $v2) (local.get $v3))))
    (f64.add (f64x2.extract_lane 0 (local.get $v0)) (f64x2.extract_lane 1 (local.get $v0)))))`;
  // wabt assembles @dtask/array's own SIMD kernels (its build dependency).
  const wabt = createRequire(join(here, '..', 'packages', 'array', 'package.json'))('wabt');
  return wabt().then((tools) => {
    const parsed = tools.parseWat('sum-ceiling.wat', wat, { simd: true, threads: true });
    const { buffer } = parsed.toBinary({});
    parsed.destroy();
    return new WebAssembly.Module(buffer);
  });
}

/** numpy's sum on one and two threads (bench/fixtures/numpy_sum.py), or why there is none. */
function numpySum() {
  const script = join(here, 'fixtures', 'numpy_sum.py');
  const params = JSON.stringify({ n, rounds });
  let last = 'no python3 found';
  for (const py of [process.env.DTASK_BENCH_PYTHON, 'python3', '/usr/bin/python3']) {
    if (!py) continue;
    const r = spawnSync(py, [script, params], { encoding: 'utf8', timeout: 300_000 });
    if (r.status === 0) return JSON.parse(r.stdout.trim().split('\n').pop());
    last = r.error ? String(r.error) : (r.stderr || '').trim().split('\n').pop();
  }
  return { skipped: `numpy unavailable (${last})` };
}

/** A DArray side: a context of 2 threads and an array whose blocks stay on the threads. */
async function darraySide(api) {
  const context = new api.Context({ plugins: [api.threads({ count: 2 })] });
  await context.ready();
  const a = api.distribute(random(n, 1), [N, N], new api.Blocks(B, B), { context });
  await Promise.all(a.chunks.map((c) => c.wait()));
  const withLimit = async (limit) => {
    const previous = api.setSmallWorkElements(limit);
    try {
      return await a.sum();
    } finally {
      api.setSmallWorkElements(previous);
    }
  };
  return { context, perBlock: () => withLimit(0), small: () => a.sum() };
}

/** The other checkout's packages, imported from their built dist. */
async function importBefore(dir) {
  const load = (pkg) => import(pathToFileURL(join(dir, 'packages', pkg, 'dist', 'index.js')).href);
  const [array, core, th] = await Promise.all([load('array'), load('core'), load('threads')]);
  return { ...array, Context: core.Context, threads: th.threads };
}

const numpyFirst = numpySum();
const after = await darraySide({ Context, threads, Blocks, distribute, setSmallWorkElements });
const old = before === undefined ? undefined : await darraySide(await importBefore(before));
try {
  const x = random(n, 1);
  // The same blocks on this thread (SharedArrayBuffers, as the threads made them) for the block
  // kernel and the raw peer; fetched from a second array so `after`'s blocks stay on the threads.
  const fetched = distribute(random(n, 1), [N, N], new Blocks(B, B), { context: after.context });
  const blocks = await Promise.all(fetched.chunks.map((c) => c.fetch()));
  const raw = rawSumPool(blocks);
  // The ceiling: the array in a shared WebAssembly memory, summed in place.
  let ceiling;
  try {
    const module = await ceilingModule();
    const pages = Math.ceil((n * 8) / 65536) + 1;
    const memory = new WebAssembly.Memory({ initial: pages, maximum: pages, shared: true });
    new Float64Array(memory.buffer, 0, n).set(x);
    const simd = new WebAssembly.Instance(module, { m: { m: memory } }).exports.sum;
    const half = n / 2;
    const workers = [0, 1].map(
      (h) =>
        new Worker(new URL('./fixtures/sum-ceiling-worker.mjs', import.meta.url), {
          workerData: {
            module,
            memory,
            shared: rangeCopy(x, h * half, half),
            start: h * half,
            n: half,
          },
        }),
    );
    const ask = (kind) =>
      Promise.all(
        workers.map(
          (w) =>
            new Promise((done) => {
              w.once('message', done);
              w.postMessage(kind);
            }),
        ),
      ).then(([p, q]) => p + q);
    ceiling = {
      one: () => simd(0, n),
      two: () => ask('simd'),
      js8Two: () => ask('js8'),
      close: () => Promise.all(workers.map((w) => w.terminate())),
    };
  } catch (error) {
    console.log(`(no in-place SIMD ceiling: ${error.message})`);
  }
  // The loops compiled on a short run first: V8 would otherwise compile them mid-loop (on-stack
  // replacement) without feedback for their ends, and run them deoptimised for some rounds.
  for (let i = 0; i < 3000; i++) sumLoop(x.subarray(0, 4099)) + sum8(x.subarray(0, 4099));
  const cases = [
    ['plain loop: one JS for, one accumulator (1 thread)', () => sumLoop(x)],
    ['block kernel: reduceBlock over the 64 blocks (1 thread)', () => sumBlocks(blocks)],
    ['DArray, a task per block (2 threads)', after.perBlock],
    ['DArray, default: a task per thread holding blocks (2 threads)', after.small],
    ...(old === undefined
      ? []
      : [
          ['before: DArray, a task per block (2 threads)', old.perBlock],
          ['before: DArray, default (2 threads)', old.small],
        ]),
    ['raw peer: 2 bare workers, block kernel on halves (2 threads)', () => raw.sum()],
    ['ceiling: JS loop, 8 accumulators (1 thread)', () => sum8(x)],
    ...(ceiling === undefined
      ? []
      : [
          ['ceiling: JS loop, 8 accumulators, halves (2 threads)', ceiling.js8Two],
          ['ceiling: WebAssembly SIMD in place (1 thread)', ceiling.one],
          ['ceiling: WebAssembly SIMD in place, halves (2 threads)', ceiling.two],
        ]),
  ];
  // dtask's scheduler and worker code finish compiling after about 8,000 tasks (V8's
  // optimising compiler, on helper threads: CPU inside the timed rounds otherwise), so each
  // DArray case first runs that many block tasks' worth of sums, untimed.
  for (const [label, run] of cases)
    if (label.includes('DArray'))
      for (let i = 0; i < Math.ceil(8000 / (N / B) ** 2); i++) await run();
  const samples = cases.map(() => ({ ms: [], cpu: [], value: 0 }));
  // Each round runs the cases in a shuffled order (a fixed seed), so that no case always follows
  // the same one: in a fixed order under load, the same DArray code measured up to 2× slower in
  // wall time (at equal CPU) where it always followed the block kernel's run on this thread.
  let seed = 12345;
  const order = cases.map((_, i) => i);
  for (let r = 0; r < warmup + rounds; r++) {
    for (let j = order.length - 1; j > 0; j--) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const k = seed % (j + 1);
      [order[j], order[k]] = [order[k], order[j]];
    }
    for (const i of order) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const value = await cases[i][1]();
      const ms = performance.now() - t0;
      const c = process.cpuUsage(c0);
      if (r < warmup) continue;
      samples[i].ms.push(ms);
      samples[i].cpu.push((c.user + c.system) / 1000);
      samples[i].value = value;
    }
  }
  // Back to back: each case called BURST times in a row (the median call of each burst kept),
  // the cases again in a shuffled order each round. In the rounds above the threads idle for
  // tens of milliseconds between two calls of one case, and on a loaded machine a thread woken
  // from that idle often starts late or is preempted for milliseconds; here they stay busy, as
  // in a loop of sums.
  const BURST = 10;
  const burstRounds = Math.max(5, Math.ceil(rounds / 3));
  const bursts = cases.map(() => ({ ms: [], cpu: [] }));
  for (let r = 0; r < burstRounds; r++) {
    for (let j = order.length - 1; j > 0; j--) {
      seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
      const k = seed % (j + 1);
      [order[j], order[k]] = [order[k], order[j]];
    }
    for (const i of order) {
      const calls = [];
      const c0 = process.cpuUsage();
      for (let k = 0; k < BURST; k++) {
        const t0 = performance.now();
        await cases[i][1]();
        calls.push(performance.now() - t0);
      }
      const c = process.cpuUsage(c0);
      bursts[i].ms.push(median(calls));
      bursts[i].cpu.push((c.user + c.system) / 1000 / BURST);
    }
  }
  await raw.close();
  await ceiling?.close();
  const numpyLast = numpySum();
  const pct = (xs, p) => [...xs].sort((a, b) => a - b)[Math.floor(p * (xs.length - 1))];
  const stats = samples.map((s) => ({
    ms: median(s.ms),
    p10: pct(s.ms, 0.1),
    p90: pct(s.ms, 0.9),
    cpuMs: median(s.cpu),
    value: s.value,
  }));
  const [loop, kernel] = stats;
  const gbs = (ms) => fixed((n * 8) / (ms * 1e6), 1);
  const row = (label, s) => [
    label,
    fixed(s.ms, 2),
    `${fixed(s.p10, 2)}–${fixed(s.p90, 2)}`,
    s.cpuMs === undefined ? '' : fixed(s.cpuMs, 2),
    gbs(s.ms),
    `${fixed(loop.ms / s.ms)}×`,
    `${fixed(kernel.ms / s.ms)}×`,
  ];
  const rows = cases.map(([label], i) => row(label, stats[i]));
  const burstStats = bursts.map((b) => ({
    ms: median(b.ms),
    p10: pct(b.ms, 0.1),
    p90: pct(b.ms, 0.9),
    cpuMs: median(b.cpu),
  }));
  const [burstLoop, burstKernel] = burstStats;
  const burstRows = cases.map(([label], i) => {
    const s = burstStats[i];
    return [
      label,
      fixed(s.ms, 2),
      `${fixed(s.p10, 2)}–${fixed(s.p90, 2)}`,
      fixed(s.cpuMs, 2),
      gbs(s.ms),
      `${fixed(burstLoop.ms / s.ms)}×`,
      `${fixed(burstKernel.ms / s.ms)}×`,
    ];
  });
  const numpyRuns = [numpyFirst, numpyLast];
  for (const [k, label] of [
    ['one', 'numpy sum (1 thread)'],
    ['two', 'numpy sum, halves (2 threads)'],
  ]) {
    numpyRuns.forEach((np, i) => {
      const when = i === 0 ? 'before the rounds' : 'after';
      if (np.skipped) rows.push([`${label}, ${when}: ${np.skipped}`, '', '', '', '', '', '']);
      else
        rows.push(
          row(`${label}, ${when} (min ${fixed(np[k].minMs, 2)})`, {
            ms: np[k].ms,
            p10: np[k].minMs,
            p90: np[k].ms,
          }),
        );
    });
  }
  console.log(
    `sum of ${N}² float64 (${fixed((n * 8) / 2 ** 20, 0)} MiB), blocks ${B}², ${rounds} rounds after ${warmup} (numpy: median, min–median)`,
  );
  console.log(
    table(
      ['case', 'ms', 'spread p10–p90', 'CPU ms', 'GB/s', '÷ plain loop', '÷ block kernel'],
      rows,
    ),
  );
  const worst = Math.max(
    ...stats.map((s) => Math.abs(s.value - loop.value) / Math.abs(loop.value)),
  );
  console.log(
    `back to back: each case called ${BURST} times in a row (its median call), ${burstRounds} rounds`,
  );
  console.log(
    table(
      ['case', 'ms', 'spread p10–p90', 'CPU ms', 'GB/s', '÷ plain loop', '÷ block kernel'],
      burstRows,
    ),
  );
  console.log(
    `largest relative difference from the plain loop's sum ${worst.toExponential(2)}; load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${os.cpus().length} cores`,
  );
  const file = join(here, 'results', 'array-sum.json');
  mkdirSync(dirname(file), { recursive: true });
  const figures = Object.fromEntries(
    cases.map(([label], i) => [
      label,
      {
        medianMs: stats[i].ms,
        cpuMs: stats[i].cpuMs,
        backToBackMs: burstStats[i].ms,
        backToBackCpuMs: burstStats[i].cpuMs,
      },
    ]),
  );
  writeFileSync(
    file,
    `${JSON.stringify({ date: new Date().toISOString(), N, B, rounds, warmup, before, loadAverage: os.loadavg(), figures, numpy: numpyRuns }, null, 2)}\n`,
  );
} finally {
  await after.context.close();
  await old?.context.close();
}

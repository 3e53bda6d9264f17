// @dtask/array stencils on the built dist: a 4096×4096 Float64 Jacobi, 20 sweeps, on 2 worker
// threads, blocks placed by default (no `assign`: the constructors spread each array's blocks
// over the threads in contiguous runs, here the left and the right half), three figures:
//  (1) stencilSteps against the same kernel in plain single-threaded JS (one Float64Array,
//      the same two buffers, the same Pad(0) edges), the plain loop timed in the same rounds;
//  (2) Blocks(512, 512) (64 blocks) against AutoBlocks(): rounds alternate between the
//      three runs, each after a full GC (main thread and workers) and a pause; the median of
//      the per-round ratios, with its spread;
//  (3) bytes moved between threads per sweep (the logs' move events over a logged 20-sweep
//      run, untimed): none, since a step's task per thread reads its neighbours' blocks in
//      place in shared memory; with the stencil tasks' count (one per thread, running every
//      sweep and meeting the other thread at a barrier between sweeps) and each one's time.
//   flock /tmp/dtask-bench.lock node bench/stencil.mjs [--quick] [--rounds=7] [--warmup=1] [--check]
// Medians of `rounds` timed runs after `warmup`; writes bench/results/stencil.json. --quick:
// 1024×1024 and Blocks(128, 128). --check exits 1 when (1) is under 1.5× (Blocks) or 1.7×
// (AutoBlocks), (2) over 1.10 (quick) or 1.05, (3) moves anything, or a result differs from
// the plain one.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { AutoBlocks, Blocks, DArray, Pad, stencilSteps } from '@dtask/array';
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { fixed, median, parseFlags, settle, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'stencil.json');
setFlagsFromString('--expose-gc'); // before the threads start: they get gc() too
const { quick, rounds, warmup, check } = parseFlags(undefined, 7, 1);
const N = quick ? 1024 : 4096;
const FINE = quick ? 128 : 512;
const SWEEPS = 20;

const jacobiA = (at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
const jacobiB = (at) => (at.B(-1, 0) + at.B(1, 0) + at.B(0, -1) + at.B(0, 1)) / 4;
// 20 sweeps ping-pong between the two buffers: A → B, B → A, …
const steps = [];
for (let s = 0; s < SWEEPS; s++) {
  steps.push(s % 2 === 0 ? { out: 'B', kernel: jacobiA } : { out: 'A', kernel: jacobiB });
}

function initial(n) {
  const x = new Float64Array(n * n);
  let s = 1;
  for (let i = 0; i < x.length; i++) {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    x[i] = s / 2 ** 32;
  }
  return x;
}

/** One Jacobi sweep of `a` into `b` (n×n, column-major), Pad(0) past the edges: plain JS. */
function sweepPlain(a, b, n) {
  for (let j = 0; j < n; j++) {
    const c = j * n;
    for (let i = 0; i < n; i++) {
      const o = c + i;
      const up = i > 0 ? a[o - 1] : 0;
      const down = i < n - 1 ? a[o + 1] : 0;
      const left = j > 0 ? a[o - n] : 0;
      const right = j < n - 1 ? a[o + n] : 0;
      b[o] = (up + down + left + right) / 4;
    }
  }
}

const x0 = initial(N);
const plainA = new Float64Array(N * N);
const plainB = new Float64Array(N * N);
const runPlain = () => {
  plainA.set(x0);
  for (let s = 0; s < SWEEPS; s++) {
    if (s % 2 === 0) sweepPlain(plainA, plainB, N);
    else sweepPlain(plainB, plainA, N);
  }
};

const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
const places = [scope({ worker: 1, thread: 2 }), scope({ worker: 1, thread: 3 })];
/** A full collection on the main thread and on both worker threads, then a pause. */
const settleAll = async () => {
  await Promise.all(places.map((p) => context.spawn({ scope: p }, () => globalThis.gc?.())));
  await settle();
};
try {
  /** Arrays A (x0) and B in `blocks`, placed by default (no `assign`). */
  const arrays = (blocks) => {
    const A = DArray.from({ data: x0, shape: [N, N] }, blocks, { context });
    const B = DArray.zeros([N, N], blocks, { context });
    return { A, B };
  };
  // A run builds and places the arrays and settles (not timed), then times stencilSteps.
  const run1 = async (blocks) => {
    const a = arrays(blocks);
    await Promise.all([...a.A.chunks, ...a.B.chunks].map((c) => c.wait()));
    await settleAll();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await stencilSteps(a, steps, { boundary: new Pad(0) });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { ms, cores: (c.user + c.system) / 1000 / ms, arrays: a };
  };
  // The plain loop, timed the same way (after the same GC and pause).
  const plain1 = async () => {
    await settleAll();
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    runPlain();
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { ms, cores: (c.user + c.system) / 1000 / ms };
  };
  // Rounds rotate the order of the three runs, so that a change of load hits all alike; the
  // ratios are taken per round.
  const cases = { fine: new Blocks(FINE, FINE), auto: new AutoBlocks() };
  const got = { plain: [], fine: [], auto: [] };
  const one = (k) => (k === 'plain' ? plain1() : run1(cases[k]));
  for (let i = 0; i < warmup; i++) for (const k of ['plain', 'fine', 'auto']) await one(k);
  const ratios = [];
  const orders = [
    ['plain', 'fine', 'auto'],
    ['auto', 'plain', 'fine'],
    ['fine', 'auto', 'plain'],
  ];
  for (let i = 0; i < rounds; i++) {
    const pair = {};
    for (const k of orders[i % 3]) {
      pair[k] = await one(k);
      got[k].push(pair[k]);
    }
    ratios.push(pair.fine.ms / pair.auto.ms);
  }
  const summary = (list) => ({
    ms: median(list.map((r) => r.ms)),
    min: Math.min(...list.map((r) => r.ms)),
    max: Math.max(...list.map((r) => r.ms)),
    cores: median(list.map((r) => r.cores)),
    arrays: list[list.length - 1].arrays,
  });
  const fine = summary(got.fine);
  const auto = summary(got.auto);
  const plain = summary(got.plain);
  const autoBlocks = auto.arrays.A.blocks.sizes;
  const autoRatio = median(ratios);

  // Results against the plain run (20 sweeps end in A).
  let worst = 0;
  for (const { arrays: r } of [fine, auto]) {
    const data = (await r.A.collect()).data;
    for (let i = 0; i < data.length; i++) worst = Math.max(worst, Math.abs(data[i] - plainA[i]));
  }
  for (const k of ['plain', 'fine', 'auto']) got[k].length = 0;
  fine.arrays = auto.arrays = undefined;

  // Bytes moved between threads in all 20 sweeps (the logs' move events; not timed), per
  // sweep: none, since each thread's task reads the neighbours' blocks, its own thread's or
  // the other's, in place in shared memory. The stencil tasks' run spans (one per thread, all
  // sweeps, the barrier waits included) against the wall time.
  const traffic = async (blocks) => {
    const a = arrays(blocks);
    await Promise.all([...a.A.chunks, ...a.B.chunks].map((c) => c.wait()));
    await settleAll();
    enableLogging();
    const t0 = performance.now();
    await stencilSteps(a, steps, { boundary: new Pad(0) });
    const wall = performance.now() - t0;
    const logs = fetchLogs();
    disableLogging();
    const out = { moved: 0, movedBlocks: 0, strips: 0, wall, kernel: {}, tasks: 0 };
    const names = new Map();
    for (const e of logs) if (e.kind === 'start') names.set(e.task, e.name);
    for (const e of logs) {
      if (e.kind === 'move') {
        if (e.name === 'haloStrip') {
          out.moved += e.bytes;
          out.strips++;
        } else out.movedBlocks += e.bytes;
      }
      if (e.kind === 'run' && names.get(e.task) === 'stencilSweeps') {
        out.kernel[e.processor] = (out.kernel[e.processor] ?? 0) + e.duration;
        out.tasks++;
      }
    }
    for (const k of ['moved', 'movedBlocks', 'strips']) out[k] /= SWEEPS;
    out.matches = out.movedBlocks === 0 && out.moved === 0;
    return out;
  };
  const moves = { fine: await traffic(cases.fine), auto: await traffic(cases.auto) };
  const G = N / FINE;
  const speedup = plain.ms / fine.ms;
  const spread = (r) => `${fixed(r.min, 0)}–${fixed(r.max, 0)}`;
  const rows = [
    [`plain JS, 1 thread`, fixed(plain.ms, 0), spread(plain), fixed(plain.cores), '', ''],
    [
      `stencilSteps, Blocks(${FINE}, ${FINE}), ${G * G} blocks`,
      fixed(fine.ms, 0),
      spread(fine),
      fixed(fine.cores),
      `${fixed(speedup)}×`,
      '',
    ],
    [
      `stencilSteps, AutoBlocks() → (${autoBlocks.join(', ')})`,
      fixed(auto.ms, 0),
      spread(auto),
      fixed(auto.cores),
      `${fixed(plain.ms / auto.ms)}×`,
      `Blocks/Auto ${fixed(autoRatio)} (${fixed(Math.min(...ratios))}–${fixed(Math.max(...ratios))})`,
    ],
  ];
  console.log(
    `Jacobi ${N}×${N} float64, ${SWEEPS} sweeps, Pad(0), 2 threads; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(table(['run', 'ms (median)', 'min–max', 'cores used', 'vs plain', ''], rows));
  console.log(
    `${rounds} rounds after ${warmup} warm-up, in rotating order; each after a full GC and a pause; blocks placed by default (no assign)`,
  );
  for (const [k, m] of Object.entries(moves)) {
    const kernel = Object.entries(m.kernel)
      .map(([p, ms]) => `${p} ${fixed(ms, 0)} ms`)
      .join(', ');
    console.log(
      `${k === 'fine' ? `Blocks(${FINE}, ${FINE})` : 'AutoBlocks()'}: bytes moved between threads per sweep ${fixed(m.moved, 0)} in ${fixed(m.strips, 1)} halo strips (${fixed(m.movedBlocks, 0)} of whole blocks): ${m.matches ? 'none, as expected' : 'UNEXPECTED'}; logged run ${fixed(m.wall, 0)} ms, ${m.tasks} stencil tasks (one per thread for all sweeps), their time ${kernel}`,
    );
  }
  console.log(`largest difference from plain JS: ${worst}`);
  mkdirSync(dirname(resultsFile), { recursive: true });
  writeFileSync(
    resultsFile,
    `${JSON.stringify(
      {
        date: new Date().toISOString(),
        n: N,
        sweeps: SWEEPS,
        plainMs: plain.ms,
        rounds,
        fine: {
          blocks: [FINE, FINE],
          ms: fine.ms,
          min: fine.min,
          max: fine.max,
          cores: fine.cores,
        },
        auto: { blocks: autoBlocks, ms: auto.ms, min: auto.min, max: auto.max, cores: auto.cores },
        speedup,
        fineOverAuto: autoRatio,
        fineOverAutoPerRound: ratios,
        plain: { ms: plain.ms, min: plain.min, max: plain.max },
        autoSpeedup: plain.ms / auto.ms,
        perSweep: moves,
        worst,
        loadavg: os.loadavg(),
      },
      null,
      2,
    )}\n`,
  );
  if (check) {
    const ok =
      speedup >= 1.5 &&
      plain.ms / auto.ms >= 1.7 &&
      autoRatio <= (quick ? 1.1 : 1.05) &&
      moves.fine.matches &&
      moves.auto.matches &&
      worst < 1e-9;
    if (!ok) process.exitCode = 1;
  }
} finally {
  await context.close();
}

// @dtask/array stencils on the built dist: a 4096×4096 Float64 Jacobi, 20 sweeps, on 2 worker
// threads, three figures:
//  (1) stencilSteps against the same kernel in plain single-threaded JS (one Float64Array,
//      the same two buffers, the same Pad(0) edges);
//  (2) Blocks(512, 512) (64 blocks) against AutoBlocks(): rounds alternate between the two,
//      each after a full GC (main thread and workers) and a pause; the median of the
//      per-round ratios, with its spread;
//  (3) bytes moved between threads per sweep (the logs' move events over a logged 20-sweep
//      run, untimed) against the halo size (the strips across the seam between the two
//      threads' halves of the array), for both blockings, with each thread's kernel time.
//   flock /tmp/dtask-bench.lock node bench/stencil.mjs [--quick] [--rounds=7] [--warmup=1] [--check]
// Medians of `rounds` timed runs after `warmup`; writes bench/results/stencil.json. --quick:
// 1024×1024 and Blocks(128, 128). --check exits 1 when (1) is under 1.8×, (2) over 1.05, (3)
// does not match, or a result differs from the plain one.
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

async function time(run) {
  for (let i = 0; i < warmup; i++) await run();
  const ms = [];
  const cores = [];
  for (let i = 0; i < rounds; i++) {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await run();
    const t = performance.now() - t0;
    const c = process.cpuUsage(c0);
    ms.push(t);
    cores.push((c.user + c.system) / 1000 / t);
  }
  return { ms: median(ms), cores: median(cores) };
}

const x0 = initial(N);
const plainA = new Float64Array(N * N);
const plainB = new Float64Array(N * N);
const plain = await time(() => {
  plainA.set(x0);
  for (let s = 0; s < SWEEPS; s++) {
    if (s % 2 === 0) sweepPlain(plainA, plainB, N);
    else sweepPlain(plainB, plainA, N);
  }
});

const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
const places = [scope({ worker: 1, thread: 2 }), scope({ worker: 1, thread: 3 })];
/** A full collection on the main thread and on both worker threads, then a pause. */
const settleAll = async () => {
  await Promise.all(places.map((p) => context.spawn({ scope: p }, () => globalThis.gc?.())));
  await settle();
};
try {
  /** Arrays A (x0) and B in `blocks`: the left half of the block columns on thread 2, the right half on thread 3. */
  const arrays = (blocks) => {
    const columns = Math.ceil(N / (blocks.sizes ?? new AutoBlocks().blocksFor([N, N], 2).sizes)[1]);
    const assign = ([, j]) => places[j < columns / 2 ? 0 : 1];
    const A = DArray.from({ data: x0, shape: [N, N] }, blocks, { context, assign });
    const B = DArray.zeros([N, N], blocks, { context, assign });
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
  // Rounds alternate between the two blockings (fine first in even rounds, Auto first in odd
  // ones), so that a change of load hits both alike; the ratio is taken per round (a pair).
  const cases = { fine: new Blocks(FINE, FINE), auto: new AutoBlocks() };
  const got = { fine: [], auto: [] };
  for (let i = 0; i < warmup; i++) for (const k of ['fine', 'auto']) await run1(cases[k]);
  const ratios = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? ['fine', 'auto'] : ['auto', 'fine'];
    const pair = {};
    for (const k of order) {
      pair[k] = await run1(cases[k]);
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
  const autoBlocks = auto.arrays.A.blocks.sizes;
  const autoRatio = median(ratios);

  // Results against the plain run (20 sweeps end in A).
  let worst = 0;
  for (const { arrays: r } of [fine, auto]) {
    const data = (await r.A.collect()).data;
    for (let i = 0; i < data.length; i++) worst = Math.max(worst, Math.abs(data[i] - plainA[i]));
  }
  for (const k of ['fine', 'auto']) got[k].length = 0;
  fine.arrays = auto.arrays = undefined;

  // Bytes moved between threads in all 20 sweeps (the logs' move events; not timed), per
  // sweep, against the halo across the seam between the two threads' halves: a column of N
  // elements each way per sweep (neighbours on the same thread are read in place). The kernel
  // time per thread (the logs' run spans of stencilBlock) against the wall time says how much
  // of a run the threads computed and how much they waited.
  const haloBytes = 2 * N * 8;
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
      if (e.kind === 'run' && names.get(e.task) === 'stencilBlock') {
        out.kernel[e.processor] = (out.kernel[e.processor] ?? 0) + e.duration;
        out.tasks++;
      }
    }
    for (const k of ['moved', 'movedBlocks', 'strips']) out[k] /= SWEEPS;
    out.matches =
      out.movedBlocks === 0 &&
      out.moved >= haloBytes &&
      (out.moved - haloBytes) / Math.max(out.strips, 1) < 200;
    return out;
  };
  const moves = { fine: await traffic(cases.fine), auto: await traffic(cases.auto) };
  const G = N / FINE;
  const speedup = plain.ms / fine.ms;
  const spread = (r) => `${fixed(r.min, 0)}–${fixed(r.max, 0)}`;
  const rows = [
    [`plain JS, 1 thread`, fixed(plain.ms, 0), '', fixed(plain.cores), '', ''],
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
    `${rounds} rounds after ${warmup} warm-up, alternating; each after a full GC and a pause`,
  );
  for (const [k, m] of Object.entries(moves)) {
    const kernel = Object.entries(m.kernel)
      .map(([p, ms]) => `${p} ${fixed(ms, 0)} ms`)
      .join(', ');
    console.log(
      `${k === 'fine' ? `Blocks(${FINE}, ${FINE})` : 'AutoBlocks()'}: bytes moved between threads per sweep ${fixed(m.moved, 0)} in ${fixed(m.strips, 1)} halo strips (${fixed(m.movedBlocks, 0)} of whole blocks) | halo across the seam ${haloBytes}: ${m.matches ? 'match' : 'NO MATCH'} (+${m.strips ? fixed((m.moved - haloBytes) / m.strips, 0) : 0} B header per strip); logged run ${fixed(m.wall, 0)} ms, ${m.tasks} block tasks, kernel time ${kernel}`,
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
        perSweep: moves,
        haloBytes,
        worst,
        loadavg: os.loadavg(),
      },
      null,
      2,
    )}\n`,
  );
  if (check) {
    const ok =
      speedup >= 1.8 &&
      autoRatio <= 1.05 &&
      moves.fine.matches &&
      moves.auto.matches &&
      worst < 1e-9;
    if (!ok) process.exitCode = 1;
  }
} finally {
  await context.close();
}

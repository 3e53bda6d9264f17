// @dtask/array stencils on the built dist: a 4096×4096 Float64 Jacobi, 20 sweeps, on 2 worker
// threads, three figures:
//  (1) stencilSteps against the same kernel in plain single-threaded JS (one Float64Array,
//      the same two buffers, the same Pad(0) edges);
//  (2) Blocks(512, 512) (64 blocks) against AutoBlocks();
//  (3) bytes moved between threads per sweep (the logs' move events) against the halo size
//      (the strips across the seam between the two threads' halves of the array).
//   node bench/stencil.mjs [--quick] [--rounds=3] [--warmup=1] [--check]
// Medians of `rounds` timed runs after `warmup`; writes bench/results/stencil.json. --quick:
// 1024×1024 and Blocks(128, 128). --check exits 1 when (1) is under 1.8×, (2) over 1.05, (3)
// does not match, or a result differs from the plain one.
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { AutoBlocks, Blocks, DArray, Pad, stencilSteps } from '@dtask/array';
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { fixed, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'stencil.json');
const { quick, rounds, warmup, check } = parseFlags(undefined, 3, 1);
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
try {
  /** Arrays A (x0) and B in `blocks`: the left half of the block columns on thread 2, the right half on thread 3. */
  const arrays = (blocks) => {
    const columns = Math.ceil(N / (blocks.sizes ?? new AutoBlocks().blocksFor([N, N], 2).sizes)[1]);
    const assign = ([, j]) => places[j < columns / 2 ? 0 : 1];
    const A = DArray.from({ data: x0, shape: [N, N] }, blocks, { context, assign });
    const B = DArray.zeros([N, N], blocks, { context, assign });
    return { A, B };
  };
  // A run builds and places the arrays (not timed), then times stencilSteps.
  const timedSteps = async (blocks) => {
    for (let i = 0; i < warmup; i++) await run1(blocks);
    const ms = [];
    const cores = [];
    let last;
    for (let i = 0; i < rounds; i++) {
      const r = await run1(blocks);
      ms.push(r.ms);
      cores.push(r.cores);
      last = r.arrays;
    }
    return { ms: median(ms), cores: median(cores), arrays: last };
  };
  const run1 = async (blocks) => {
    const a = arrays(blocks);
    await Promise.all([...a.A.chunks, ...a.B.chunks].map((c) => c.wait()));
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await stencilSteps(a, steps, { boundary: new Pad(0) });
    const ms = performance.now() - t0;
    const c = process.cpuUsage(c0);
    return { ms, cores: (c.user + c.system) / 1000 / ms, arrays: a };
  };
  const fine = await timedSteps(new Blocks(FINE, FINE));
  const auto = await timedSteps(new AutoBlocks());
  const autoBlocks = auto.arrays.A.blocks.sizes;

  // Results against the plain run (20 sweeps end in A).
  let worst = 0;
  for (const { arrays: r } of [fine, auto]) {
    const got = (await r.A.collect()).data;
    for (let i = 0; i < got.length; i++) worst = Math.max(worst, Math.abs(got[i] - plainA[i]));
  }

  // Bytes moved in one sweep, Blocks(FINE), against the face strips between threads.
  const one = arrays(new Blocks(FINE, FINE));
  await Promise.all([...one.A.chunks, ...one.B.chunks].map((c) => c.wait()));
  enableLogging();
  await stencilSteps(one, [steps[0]], { boundary: new Pad(0) });
  const logs = fetchLogs();
  disableLogging();
  let moved = 0;
  let movedBlocks = 0;
  let strips = 0;
  for (const e of logs) {
    if (e.kind !== 'move') continue;
    if (e.name === 'haloStrip') {
      moved += e.bytes;
      strips++;
    } else movedBlocks += e.bytes;
  }
  const G = N / FINE;
  // Neighbours on the same thread are read in place; across the seam between the halves, a
  // column of N elements moves each way.
  const haloBytes = 2 * N * 8;
  const speedup = plain.ms / fine.ms;
  const autoRatio = fine.ms / auto.ms;
  const rows = [
    [`plain JS, 1 thread`, fixed(plain.ms, 0), fixed(plain.cores), '', ''],
    [
      `stencilSteps, Blocks(${FINE}, ${FINE}), ${G * G} blocks`,
      fixed(fine.ms, 0),
      fixed(fine.cores),
      `${fixed(speedup)}×`,
      '',
    ],
    [
      `stencilSteps, AutoBlocks() → (${autoBlocks.join(', ')})`,
      fixed(auto.ms, 0),
      fixed(auto.cores),
      `${fixed(plain.ms / auto.ms)}×`,
      `Blocks/Auto ${fixed(autoRatio)}`,
    ],
  ];
  console.log(
    `Jacobi ${N}×${N} float64, ${SWEEPS} sweeps, Pad(0), 2 threads; ${os.cpus().length} cores, load ${os.loadavg()[0].toFixed(1)}`,
  );
  console.log(table(['run', 'ms', 'cores used', 'vs plain', ''], rows));
  console.log(
    `bytes moved between threads in one sweep: ${moved} in ${strips} halo strips (${movedBlocks} of whole blocks); halo across the seam between the threads: ${haloBytes} (+${strips ? fixed((moved - haloBytes) / strips, 0) : 0} B of header per strip)`,
  );
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
        fine: { blocks: [FINE, FINE], ms: fine.ms, cores: fine.cores },
        auto: { blocks: autoBlocks, ms: auto.ms, cores: auto.cores },
        speedup,
        fineOverAuto: autoRatio,
        bytesMoved: moved,
        bytesMovedWholeBlocks: movedBlocks,
        haloBytes,
        strips,
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
      movedBlocks === 0 &&
      moved >= haloBytes &&
      worst < 1e-9;
    if (!ok) process.exitCode = 1;
  }
} finally {
  await context.close();
}

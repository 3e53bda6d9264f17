// What a datadeps region task costs beside its kernel, thread by thread: the tiled Cholesky's
// 120 region tasks (1024², tiles of 128: the same views, `In`/`InOut` annotations and
// priorities as `cholesky`), each kernel replaced by a 0.5 ms sleep (`Atomics.wait`), so that
// the CPU the threads use is the runtime's own: the main thread's (dependency analysis, spawn,
// dispatch, completions) and the two worker threads' (reading the run message, running the
// task, reporting), in µs a task, from `/proc/self/task/*/schedstat`. Linux only.
//   node bench/region-task-cost.mjs [--rounds=60] [--warmup=60] [--roots=DIR,DIR] [--processes]
// --processes runs the tasks on 2 worker processes (`cluster({ workers: 2 })`) over a matrix in
// an ordinary buffer: each task's tiles travel as compact copies and its written tile comes back
// (copy-in, copy-out); the workers' CPU is then the worker processes' (all their threads).
// With DTASK_BENCH_WINDOW=1 it prints the timed window's bounds on the monotonic clock (ns), to
// cut a `perf record -k CLOCK_MONOTONIC` profile to the window.
// "spawn loop" is the wall time of the region function's spawn loop (the region's dependency
// analysis and the spawns; the rest of the main thread's CPU is completions, dispatch and
// messages): synchronous, so at most its CPU plus any time preempted (schedstat, updated at
// context switches and ticks only, reads a running thread's short loop as 0).
// --roots names built checkouts (DIR/packages/*/dist) to run alternately in this one process,
// each with a context of its own (so a change is compared with the code before it under the
// same load); default: this checkout. --raw adds the hand-written raw scheduler
// (fixtures/cholesky-peers.mjs) on 2 threads of its own, its tasks asleep as long, alternated
// with the others: the CPU a task costs each thread without dtask (shared memory only).
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadCpu } from './fixtures/thread-cpu.mjs';
import { median, parseFlags, table } from './shared.mjs';

const rootsArg = process.argv.find((a) => a.startsWith('--roots='));
const inProcesses = process.argv.includes('--processes');
const withRaw = process.argv.includes('--raw') && !inProcesses;
const roots = rootsArg
  ? rootsArg
      .slice('--roots='.length)
      .split(',')
      .map((d) => resolve(d))
  : [resolve(join(fileURLToPath(import.meta.url), '../..'))];
const { rounds, warmup } = parseFlags(
  process.argv.slice(2).filter((a) => a !== rootsArg && a !== '--processes' && a !== '--raw'),
  60,
  60,
);

const N = 1024;
const TILE = 128;
const NT = N / TILE;
const TASKS = 120; // for 8 × 8 tiles: potrf 8, trsm 28, syrk 28, gemm 56
/** How long `sleepTile` sleeps (ms): the raw peer's tasks sleep as long. */
const SLEEP_MS = 0.5;

/** A tile kernel's stand-in: 0.5 ms asleep, whatever its arguments (self-contained). */
function sleepTile() {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 0.5);
}

const data = new Float64Array(inProcesses ? N * N : new SharedArrayBuffer(8 * N * N));
const matrix = { data, shape: [N, N], strides: [N, 1], offset: 0 };

/** One runner per checkout: a 2-thread context and its packages. */
const runners = [];
for (const root of roots) {
  const from = (path) => import(pathToFileURL(join(root, path)).href);
  const { Context } = await from('packages/core/dist/index.js');
  const { threads } = await from('packages/threads/dist/index.js');
  const { cluster } = await from('packages/cluster/dist/index.js');
  const { spawnDatadeps, In, InOut, view } = await from('packages/datadeps/dist/index.js');
  const plugin = inProcesses ? cluster({ workers: 2 }) : threads({ count: 2 });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  const t = (i, j) => view(matrix, [i * TILE, (i + 1) * TILE], [j * TILE, (j + 1) * TILE]);
  const urgency = (column, panel) => ({ priority: 2 * (NT - column) + (panel ? 1 : 0) });
  const spawnUs = [];
  const run = () =>
    spawnDatadeps(() => {
      const s0 = performance.now();
      for (let k = 0; k < NT; k++) {
        ctx.spawn(urgency(k, true), sleepTile, InOut(t(k, k)), k * TILE);
        for (let i = k + 1; i < NT; i++) {
          ctx.spawn(urgency(k, true), sleepTile, In(t(k, k)), InOut(t(i, k)));
        }
        for (let i = k + 1; i < NT; i++) {
          ctx.spawn(urgency(i, false), sleepTile, In(t(i, k)), InOut(t(i, i)));
          for (let j = k + 1; j < i; j++) {
            ctx.spawn(urgency(j, false), sleepTile, In(t(i, k)), In(t(j, k)), InOut(t(i, j)));
          }
        }
      }
      spawnUs.push(((performance.now() - s0) * 1e3) / TASKS);
    });
  runners.push({ root, ctx, run, ms: [], cpu: new Map(), main: [], spawnUs });
}
if (withRaw) {
  const { handWritten } = await import('./fixtures/cholesky-peers.mjs');
  const raw = await handWritten(matrix, TILE, 2, SLEEP_MS);
  const root = 'raw worker_threads (hand-written)';
  runners.push({ root, ctx: raw, run: raw.run, ms: [], cpu: new Map(), main: [] });
}

const mainTid = String(process.pid);
let windowStart = 0n;
for (let r = 0; r < warmup + rounds; r++) {
  if (r === warmup) windowStart = process.hrtime.bigint();
  const order = r % 2 === 0 ? runners : [...runners].reverse();
  for (const runner of order) {
    const c0 = threadCpu({ children: inProcesses });
    const t0 = performance.now();
    await runner.run();
    const ms = performance.now() - t0;
    const c1 = threadCpu({ children: inProcesses });
    if (r < warmup) continue;
    runner.ms.push(ms);
    runner.main.push((c1.get(mainTid) - c0.get(mainTid)) / 1e3 / TASKS);
    for (const [tid, ns] of c1) {
      if (tid === mainTid) continue;
      runner.cpu.set(tid, (runner.cpu.get(tid) ?? 0) + (ns - (c0.get(tid) ?? 0)) / 1e3);
    }
  }
}
if (process.env.DTASK_BENCH_WINDOW === '1') {
  console.log(`window ${windowStart} ${process.hrtime.bigint()}`);
}
for (const runner of runners) await runner.ctx.close();

const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(
  `\nRegion tasks with sleeping kernels (Cholesky ${N}², tiles of ${TILE}, ${TASKS} tasks, 0.5 ms each), ` +
    `${inProcesses ? '2 worker processes, ordinary buffer' : '2 worker threads, shared memory'}: ` +
    `${rounds} rounds after ${warmup}, load ${load}; CPU in µs a task\n`,
);
const rows = runners.map((runner) => {
  const others = [...runner.cpu.values()].sort((x, y) => y - x);
  const perTask = (us) => us / rounds / TASKS;
  const workers = others.slice(0, 2).map(perTask);
  const rest = perTask(others.slice(2).reduce((s, v) => s + v, 0));
  // The spawn loop's wall time, the timed rounds' only (the list also holds the warm-up's).
  const spawn = runner.spawnUs?.slice(warmup);
  return [
    runner.root,
    median(runner.ms).toFixed(1),
    median(runner.main).toFixed(1),
    spawn === undefined ? '-' : median(spawn).toFixed(1),
    workers.map((w) => w.toFixed(1)).join(' + '),
    (workers[0] + workers[1]).toFixed(1),
    rest.toFixed(1),
  ];
});
console.log(
  table(
    [
      'checkout',
      'wall ms',
      'main µs/task (med.)',
      'spawn loop µs/task (wall, med.)',
      'workers µs/task',
      'workers sum',
      'other threads',
    ],
    rows,
  ),
);

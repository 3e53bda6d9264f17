// Where a tile thread's time goes between its tasks in the tiled Cholesky (1024², tiles of 128:
// 120 tasks), dtask (`spawnDatadeps` on 2 worker threads: the same views, `In`/`InOut` and
// priorities as `cholesky`) against the hand-written raw scheduler (fixtures/cholesky-peers.mjs),
// and what the order of ready tasks could win at best.
//
// First a model (fixtures/schedule-model.mjs): each tile operation's cost measured here on this
// thread, the DAG list-scheduled on 2 workers by three orders of ready tasks (submission order;
// `cholesky`'s priorities, which the raw scheduler also uses; each task's bottom level, the
// costliest chain below it), with no task queued behind a running one (the raw scheduler) or
// one (dtask), a completion heard 0 or 0.1 ms after it ends.
//
// Then both runners, alternated in one process, with each kernel replaced by a sleep as long as
// `--scale` × its operation's cost (`Atomics.wait`: no CPU, so the threads' time is the
// scheduling's), each task writing its thread, start and end to shared memory. Per tile thread
// and factorisation: the time asleep in kernels, before its first task, between its tasks (by
// length: under 40 µs is a next task already there; a round trip through the main thread is
// longer) and after its last. Sleeps overshoot under load (0.05–0.2 ms each), so compare the
// runners in the same run, not with the model's sums.
//   node bench/cholesky-gaps.mjs [--rounds=40] [--warmup=30] [--scale=0.5] [--model]
// --model prints the model only.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Context } from '@dtask/core';
import { In, InOut, spawnDatadeps, view } from '@dtask/datadeps';
import { gemm, potrf, spdMatrix, syrk, trsm } from '@dtask/datadeps/examples';
import { threads } from '@dtask/threads';
import { choleskyDag, handWritten } from './fixtures/cholesky-peers.mjs';
import { bottomLevels, makespan } from './fixtures/schedule-model.mjs';
import { median, parseFlags, table } from './shared.mjs';

const own = ['--scale=', '--model'];
const scaleArg = process.argv.find((a) => a.startsWith('--scale='));
const scale = scaleArg ? Number(scaleArg.slice('--scale='.length)) : 0.5;
const modelOnly = process.argv.includes('--model');
const { rounds, warmup } = parseFlags(
  process.argv.slice(2).filter((a) => !own.some((o) => a.startsWith(o))),
  40,
  30,
);

const N = 1024;
const TILE = 128;
const NT = N / TILE;
const dag = choleskyDag(NT);
/** The tile operations, by `op` (choleskyDag). */
const OPS = ['potrf', 'trsm', 'syrk', 'gemm'];

/** Median ms of each tile operation (potrf, trsm, syrk, gemm) on this thread, after a warm-up. */
function kernelCosts() {
  const m = spdMatrix(N, 1);
  const input = m.data.slice();
  const t = (r, c) => ({
    data: m.data,
    shape: [TILE, TILE],
    strides: [N, 1],
    offset: (r * N + c) * TILE,
  });
  const ops = [
    () => potrf(t(0, 0)),
    () => trsm(t(0, 0), t(1, 0)),
    () => syrk(t(1, 0), t(1, 1)),
    () => gemm(t(2, 0), t(1, 0), t(2, 1)),
  ];
  const times = ops.map(() => []);
  for (let r = 0; r < 120; r++) {
    m.data.set(input);
    ops.forEach((op, i) => {
      const t0 = performance.now();
      op();
      if (r >= 60) times[i].push(performance.now() - t0);
    });
  }
  return times.map(median);
}

const costs = kernelCosts();
const costOf = (task) => costs[task.op];
const below = bottomLevels(dag, costOf);
const orders = {
  'submission order': (t) => -t,
  "cholesky's priorities": (t) => dag[t].priority,
  'bottom level': (t) => below[t],
};
const total = dag.reduce((s, task) => s + costOf(task), 0);
console.log(
  `\nKernels (ms, median on this thread): ${OPS.map((op, i) => `${op} ${costs[i].toFixed(2)}`).join(', ')}; ` +
    `all 120 tasks ${total.toFixed(1)} ms, ${(total / 2).toFixed(1)} a worker; longest chain ${Math.max(...below).toFixed(1)}`,
);
console.log('Model, 2 workers: makespan in ms (what each thread idles, beyond its share)\n');
const cases = [
  [0, 0],
  [0, 0.1],
  [1, 0.1],
];
console.log(
  table(
    ['order of ready tasks', ...cases.map(([d, l]) => `${d} queued, heard after ${l} ms`)],
    Object.entries(orders).map(([name, rank]) => [
      name,
      ...cases.map(([depth, latency]) => {
        const ms = makespan(dag, costOf, { workers: 2, depth, latency, rank });
        return `${ms.toFixed(2)} (${(ms - total / 2).toFixed(2)})`;
      }),
    ]),
  ),
);
if (modelOnly) process.exit(0);

/** A tile operation's stand-in: asleep for `ms`; writes its thread, start and end to `log`. */
function loggedSleep(ms, log, index) {
  const start = performance.timeOrigin + performance.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  globalThis.__choleskyGapsThread ??= Math.random();
  log[3 * index] = globalThis.__choleskyGapsThread;
  log[3 * index + 1] = start;
  log[3 * index + 2] = performance.timeOrigin + performance.now();
}

const sleeps = costs.map((c) => c * scale);
const log = new Float64Array(new SharedArrayBuffer(8 * 3 * dag.length));
const matrix = {
  data: new Float64Array(new SharedArrayBuffer(8 * N * N)),
  shape: [N, N],
  strides: [N, 1],
  offset: 0,
};
const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
const tileOf = (i, j) => view(matrix, [i * TILE, (i + 1) * TILE], [j * TILE, (j + 1) * TILE]);
const urgency = (column, panel) => ({ priority: 2 * (NT - column) + (panel ? 1 : 0) });
const dtask = () =>
  spawnDatadeps(() => {
    let x = 0;
    for (let k = 0; k < NT; k++) {
      ctx.spawn(urgency(k, true), loggedSleep, sleeps[0], log, x++, InOut(tileOf(k, k)));
      for (let i = k + 1; i < NT; i++) {
        ctx.spawn(
          urgency(k, true),
          loggedSleep,
          sleeps[1],
          log,
          x++,
          In(tileOf(k, k)),
          InOut(tileOf(i, k)),
        );
      }
      for (let i = k + 1; i < NT; i++) {
        ctx.spawn(
          urgency(i, false),
          loggedSleep,
          sleeps[2],
          log,
          x++,
          In(tileOf(i, k)),
          InOut(tileOf(i, i)),
        );
        for (let j = k + 1; j < i; j++) {
          const args = [In(tileOf(i, k)), In(tileOf(j, k)), InOut(tileOf(i, j))];
          ctx.spawn(urgency(j, false), loggedSleep, sleeps[3], log, x++, ...args);
        }
      }
    }
  });
const raw = await handWritten(matrix, TILE, 2, sleeps, log);
const runs = { dtask, raw: raw.run };
const names = Object.keys(runs);
/** Gap buckets (ms): a next task already there, about a round trip, longer. */
const BUCKETS = [0.04, 0.16, Number.POSITIVE_INFINITY];
const sums = Object.fromEntries(
  names.map((n) => [
    n,
    {
      wall: 0,
      ran: 0,
      before: 0,
      between: 0,
      after: 0,
      threads: 0,
      count: BUCKETS.map(() => 0),
      ms: BUCKETS.map(() => 0),
    },
  ]),
);
for (let r = 0; r < warmup + rounds; r++) {
  for (const name of r % 2 === 0 ? names : [...names].reverse()) {
    log.fill(0);
    const t0 = performance.timeOrigin + performance.now();
    await runs[name]();
    const t1 = performance.timeOrigin + performance.now();
    if (r < warmup) continue;
    const s = sums[name];
    const byThread = new Map();
    for (let x = 0; x < dag.length; x++) {
      const thread = log[3 * x];
      if (!byThread.has(thread)) byThread.set(thread, []);
      byThread.get(thread).push([log[3 * x + 1], log[3 * x + 2]]);
    }
    s.wall += t1 - t0;
    s.threads += byThread.size;
    for (const tasks of byThread.values()) {
      tasks.sort((x, y) => x[0] - y[0]);
      s.before += tasks[0][0] - t0;
      s.after += t1 - tasks[tasks.length - 1][1];
      for (let i = 0; i < tasks.length; i++) {
        s.ran += tasks[i][1] - tasks[i][0];
        if (i === 0) continue;
        const gap = tasks[i][0] - tasks[i - 1][1];
        const b = BUCKETS.findIndex((limit) => gap < limit);
        s.between += gap;
        s.count[b]++;
        s.ms[b] += gap;
      }
    }
  }
}
await raw.close();
await ctx.close();

const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(
  `\nKernels asleep (${scale} × their cost, ${(scale * total).toFixed(1)} ms in all): ${rounds} rounds after ${warmup}, load ${load}; ` +
    'ms a tile thread and factorisation (gaps: how many, ms)\n',
);
console.log(
  table(
    [
      'runner',
      'wall',
      'threads',
      'in kernels',
      'before first',
      'between',
      'gaps < 40 µs',
      '40–160 µs',
      '≥ 160 µs',
      'after last',
    ],
    names.map((name) => {
      const s = sums[name];
      const perThread = (v) => (v / s.threads).toFixed(2);
      const gaps = (b) => `${(s.count[b] / s.threads).toFixed(1)}, ${perThread(s.ms[b])}`;
      return [
        name === 'dtask' ? 'spawnDatadeps, 2 worker threads' : 'hand-written raw scheduler',
        (s.wall / rounds).toFixed(2),
        (s.threads / rounds).toFixed(1),
        perThread(s.ran),
        perThread(s.before),
        perThread(s.between),
        gaps(0),
        gaps(1),
        gaps(2),
        perThread(s.after),
      ];
    }),
  ),
);

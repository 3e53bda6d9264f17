// @dtask/cluster as local workers grow, on this machine: for each count of worker processes,
// the time to ready (`await ctx.ready()` with `cluster({ workers })`) beside the time to start
// that many bare `node` processes at once (each says it runs; the peer figure: no cluster can
// start faster than its processes), trivial tasks gathered with `fetchAll` (tasks/s, beside the
// 2-worker figure of the same run), both scoped to the worker processes (as bench/cluster.mjs
// does) and placed by default (no scope: the workers take them), and the connected sockets
// each worker process holds after the tasks (Unix and TCP, counted with `ss` from Debian's
// iproute2). Counts alternate within each round, so load on the machine falls on all alike.
// Besides the CPU per task of every round, it reports the timed rounds' alone, split between
// the scheduler and the workers (steadier than tasks/s on a loaded machine), the most worker
// processes that ran tasks in one timed round, and what the cluster costs idle: the CPU per
// second of the scheduler and of all workers over `IDLE_MS` with no tasks, after the rounds.
// The heartbeat and start timeouts are long (30 s, 120 s), so that older code (a full mesh of
// peer links at start; a worker's heartbeat thread given only the heartbeat timeout to start)
// can start 32 workers on a loaded machine too.
//   node bench/cluster-scale.mjs [--quick] [--rounds=3]
// Prints a table and writes bench/results/cluster-scale.json.
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { cluster } from '@dtask/cluster';
import { Context, fetchAll, scope } from '@dtask/core';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'cluster-scale.json');
const { quick, rounds } = parseFlags(process.argv.slice(2), 3);
const COUNTS = quick ? [2, 32] : [2, 8, 32];
const TASKS = quick ? 4_000 : 10_000;
const TASK_ROUNDS = quick ? 3 : 5;
const IDLE_MS = 3_000;

/** Starts `n` bare node processes at once; ms until each has said it runs. */
function bareNodeMs(n) {
  const t0 = performance.now();
  return Promise.all(
    Array.from(
      { length: n },
      () =>
        new Promise((resolve, reject) => {
          const child = spawn(process.execPath, ['-e', 'process.stdout.write("up")'], {
            stdio: ['ignore', 'pipe', 'inherit'],
          });
          child.stdout.once('data', () => resolve(performance.now() - t0));
          child.once('error', reject);
        }),
    ),
  ).then((times) => Math.max(...times));
}

/** Connected (established) Unix and TCP sockets of each pid, from `ss`; undefined without it. */
function connectedSockets(pids) {
  const r = spawnSync('ss', ['-H', '-x', '-t', '-n', '-p', 'state', 'established'], {
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  if (r.status !== 0) return undefined;
  const counts = new Map(pids.map((p) => [p, 0]));
  for (const m of r.stdout.matchAll(/pid=(\d+),/g)) {
    const pid = Number(m[1]);
    if (counts.has(pid)) counts.set(pid, counts.get(pid) + 1);
  }
  return [...counts.values()];
}

/** CPU time a process has used (ms), from /proc (Linux). */
function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * (1000 / 100); // clock ticks of 10 ms
}

/** One cluster of `workers` local processes: ready time, tasks/s, sockets per worker. */
async function runCluster(workers) {
  const t0 = performance.now();
  const plugin = cluster({ workers, heartbeatTimeoutMs: 30_000, startTimeoutMs: 120_000 });
  const ctx = new Context({ plugins: [plugin] });
  try {
    await ctx.ready();
    const readyMs = performance.now() - t0;
    const ids = plugin.processWorkers().map((w) => w.worker);
    const on = { scope: scope({ workers: ids }) };
    const inc = (x) => x + 1;
    const samples = [];
    const plain = [];
    const pids = plugin.processWorkers().map((w) => w.child.pid);
    const workersCpu = () => pids.reduce((a, p) => a + cpuMs(p), 0);
    const ownCpu = () => {
      const u = process.cpuUsage();
      return (u.user + u.system) / 1000;
    };
    const cpu0 = workersCpu() + ownCpu();
    // CPU (ms) of the scheduler and of the workers over the timed rounds (from just before each
    // burst to just after it: not the `stats()` read between them).
    let ownTimed = 0;
    let workersTimed = 0;
    let mostWorkers = 0; // worker processes that ran tasks in one timed round, at most
    const ranOn = () => ctx.stats().processors.map((p) => p.tasks);
    for (let r = 0; r < 2 + TASK_ROUNDS; r++) {
      for (const scoped of [true, false]) {
        const ran0 = ranOn();
        const own0 = ownCpu();
        const workers0 = workersCpu();
        const s0 = performance.now();
        const ts = [];
        for (let i = 0; i < TASKS; i++) ts.push(scoped ? ctx.spawn(on, inc, i) : ctx.spawn(inc, i));
        const values = await fetchAll(ts);
        const ms = performance.now() - s0;
        let sum = 0;
        for (const v of values) sum += v;
        if (sum !== (TASKS * (TASKS + 1)) / 2) throw new Error('wrong sum');
        if (r < 2) continue; // two warm-up rounds
        ownTimed += ownCpu() - own0;
        workersTimed += workersCpu() - workers0;
        (scoped ? samples : plain).push(ms);
        const ran = ranOn().filter((n, i) => n > (ran0[i] ?? 0)).length;
        mostWorkers = Math.max(mostWorkers, ran);
      }
    }
    const timedTasks = TASKS * 2 * TASK_ROUNDS;
    const cpuAll = workersCpu() + ownCpu() - cpu0;
    const idle0 = { own: ownCpu(), workers: workersCpu(), at: performance.now() };
    await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
    const idleS = (performance.now() - idle0.at) / 1000;
    const idleOwn = (ownCpu() - idle0.own) / idleS;
    const idleWorkers = (workersCpu() - idle0.workers) / idleS;
    const sockets = connectedSockets(pids);
    const mine = connectedSockets([process.pid]);
    return {
      readyMs,
      tasksPerSecond: TASKS / (median(samples) / 1000),
      defaultTasksPerSecond: TASKS / (median(plain) / 1000),
      // CPU of every process (scheduler and workers) per task, over all rounds, both kinds:
      // what load on the machine does not change as much as wall time.
      cpuUsPerTask: (cpuAll * 1000) / (TASKS * 2 * (2 + TASK_ROUNDS)),
      // The timed rounds alone (no warm-up), split between the scheduler and the workers.
      schedulerUsPerTimedTask: (ownTimed * 1000) / timedTasks,
      workersUsPerTimedTask: (workersTimed * 1000) / timedTasks,
      mostWorkersPerRound: mostWorkers,
      // Idle after the rounds: ms of CPU per second.
      idleSchedulerMsPerS: idleOwn,
      idleWorkersMsPerS: idleWorkers,
      socketsPerWorkerMax: sockets ? Math.max(...sockets) : undefined,
      socketsPerWorkerMedian: sockets ? median(sockets) : undefined,
      socketsAll: sockets ? sockets.reduce((a, b) => a + b, 0) + mine[0] : undefined,
    };
  } finally {
    await ctx.close();
  }
}

const seen = new Map(COUNTS.map((w) => [w, []]));
for (let r = 0; r < rounds; r++) {
  for (const w of COUNTS) {
    const bareMs = await bareNodeMs(w);
    const c = await runCluster(w);
    seen.get(w).push({ bareMs, ...c });
    process.stderr.write(
      `round ${r + 1}, ${w} workers: ready ${int(c.readyMs)} ms (bare node ${int(bareMs)} ms), ${int(c.tasksPerSecond)} tasks/s scoped, ${int(c.defaultTasksPerSecond)} by default, ${fixed(c.cpuUsPerTask, 1)} µs CPU per task (timed rounds: scheduler ${fixed(c.schedulerUsPerTimedTask, 2)}, workers ${fixed(c.workersUsPerTimedTask, 2)}; at most ${c.mostWorkersPerRound} workers ran tasks in one), idle: scheduler ${fixed(c.idleSchedulerMsPerS, 1)}, workers ${fixed(c.idleWorkersMsPerS, 1)} ms CPU/s, sockets/worker ≤ ${c.socketsPerWorkerMax}\n`,
    );
  }
}

const med = (w, key) => median(seen.get(w).map((s) => s[key]));
const spread = (w, key) => {
  const xs = seen.get(w).map((s) => s[key]);
  return `${int(Math.min(...xs))}–${int(Math.max(...xs))}`;
};
const base = med(2, 'tasksPerSecond');
const baseDefault = med(2, 'defaultTasksPerSecond');
const results = { date: new Date().toISOString(), tasks: TASKS, rounds, counts: {} };
const rows = COUNTS.map((w) => {
  const row = {
    bareNodeMs: med(w, 'bareMs'),
    readyMs: med(w, 'readyMs'),
    tasksPerSecond: med(w, 'tasksPerSecond'),
    defaultTasksPerSecond: med(w, 'defaultTasksPerSecond'),
    cpuUsPerTask: med(w, 'cpuUsPerTask'),
    schedulerUsPerTimedTask: med(w, 'schedulerUsPerTimedTask'),
    workersUsPerTimedTask: med(w, 'workersUsPerTimedTask'),
    mostWorkersPerRound: Math.max(...seen.get(w).map((s) => s.mostWorkersPerRound)),
    idleSchedulerMsPerS: med(w, 'idleSchedulerMsPerS'),
    idleWorkersMsPerS: med(w, 'idleWorkersMsPerS'),
    socketsPerWorkerMax: Math.max(...seen.get(w).map((s) => s.socketsPerWorkerMax ?? Number.NaN)),
    socketsAll: med(w, 'socketsAll'),
  };
  results.counts[`${w} workers`] = row;
  return [
    `${w} workers`,
    `${int(row.bareNodeMs)} ms`,
    `${int(row.readyMs)} ms (${spread(w, 'readyMs')})`,
    `${fixed(row.readyMs / row.bareNodeMs, 1)}×`,
    `${int(row.tasksPerSecond)} /s (${spread(w, 'tasksPerSecond')})`,
    `${fixed((100 * row.tasksPerSecond) / base, 0)}%`,
    `${int(row.defaultTasksPerSecond)} /s (${spread(w, 'defaultTasksPerSecond')})`,
    `${fixed((100 * row.defaultTasksPerSecond) / baseDefault, 0)}%`,
    `${fixed(row.cpuUsPerTask, 1)} µs`,
    `${fixed(row.schedulerUsPerTimedTask, 1)} / ${fixed(row.workersUsPerTimedTask, 1)} µs`,
    String(row.mostWorkersPerRound),
    `${fixed(row.idleSchedulerMsPerS, 1)} / ${fixed(row.idleWorkersMsPerS, 1)} ms`,
    String(row.socketsPerWorkerMax),
    String(row.socketsAll),
  ];
});
console.log(
  `cluster scale: ${os.cpus().length} cores, node ${process.version}, ${TASKS} trivial tasks per round (fetchAll), medians of ${rounds} rounds (min–max)`,
);
console.log(
  table(
    [
      'local workers',
      'bare node start',
      'ready',
      'ready / bare',
      'tasks/s, scoped',
      'vs 2 workers',
      'tasks/s, default',
      'vs 2 workers',
      'CPU per task, all processes',
      'timed rounds: scheduler / workers',
      'workers running tasks (max)',
      'idle CPU per s: scheduler / workers',
      'sockets/worker (max)',
      'sockets, all',
    ],
    rows,
  ),
);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

// Worker-thread throughput and latency of @dtask/threads against Piscina 5,
// tinypool 2 and raw worker_threads, on the built dist:
//   node bench/threads.mjs [--quick] [--rounds=5] [--check]
// Each measurement runs in a fresh Node process (threads-cases.mjs), so that one runner's heap,
// JIT state and threads do not skew another. Prints tables and writes
// bench/results/threads.json. --check exits 1 when a target is missed. While @dtask/threads is
// not built, the dtask rows read "unavailable (package not built)" and the peers still run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const casesFile = join(here, 'threads-cases.mjs');
const resultsFile = join(here, 'results', 'threads.json');

const { quick, rounds: roundCount, check } = parseFlags();

/** The issue's targets. */
const TARGETS = {
  tasksPerSecond: 250_000,
  ratioToPiscina: 7,
  ratioToRaw: 0.5,
  chainMicrosecondsPerTask: 20,
  cpuSpeedup: 1.9,
};
const THREADS = 2;
const N_TRIVIAL = quick ? 20_000 : 200_000;
const N_CHAIN = quick ? 1_000 : 10_000;
const LEAVES = quick ? 128 : 1_024;
const N_CPU = quick ? 40 : 400;
const CPU_TASK_MS = 1;
/** A round longer than this means a lost task: the case ends and is reported as hung. */
const ROUND_TIMEOUT_MS = quick ? 20_000 : 60_000;
/** Backstop: a case process that runs longer than this is killed and reported as failed. */
const CASE_TIMEOUT_MS = quick ? 180_000 : 900_000;
const ROUNDS = { rounds: roundCount, warmup: 1, roundTimeoutMs: ROUND_TIMEOUT_MS };

const UNAVAILABLE = 'unavailable (package not built)';
const ok = (s) => s?.status === 'ok';

/** Set once a dtask case reports that @dtask/threads cannot be loaded: later ones are skipped. */
let dtaskUnavailable = false;
/** Cases that failed (not "unavailable"): the run exits 1 after reporting. */
const failures = [];

/** All CPUs' time so far, busy and in total (ms, from the kernel's counters). */
function cpuTimes() {
  let idle = 0;
  let total = 0;
  for (const { times } of os.cpus()) {
    idle += times.idle;
    total += times.user + times.nice + times.sys + times.idle + times.irq;
  }
  return { busy: total - idle, total };
}

/**
 * Runs one case in a fresh process. Returns its parsed result, or `{ status }` where it could
 * not run: 'unavailable' (exit 3: the runner's package is not built) or 'failed'.
 */
function runCase(name, params) {
  if (params.runner?.startsWith('dtask') && dtaskUnavailable) return { status: 'unavailable' };
  const load = os.loadavg()[0];
  const before = cpuTimes();
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', casesFile, name, JSON.stringify(params)],
    {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      maxBuffer: 1 << 24,
      timeout: CASE_TIMEOUT_MS,
      killSignal: 'SIGKILL',
    },
  );
  if (child.status === 3) {
    if (params.runner?.startsWith('dtask')) dtaskUnavailable = true;
    process.stderr.write('u');
    return { status: 'unavailable', reason: child.stderr.trim() };
  }
  if (child.status !== 0) {
    const why =
      child.status === 4
        ? `hung: a round took over ${ROUND_TIMEOUT_MS / 1000} s`
        : child.error?.code === 'ETIMEDOUT'
          ? 'timed out'
          : `exit ${child.status ?? child.signal}`;
    const message = `case ${name} ${JSON.stringify(params)} failed (${why})`;
    console.error(`\n${message}\n${child.stderr.trim()}`);
    failures.push(message);
    return { status: 'failed', reason: why };
  }
  if (child.stderr.trim()) console.error(`\n${child.stderr.trim()}`);
  const lines = child.stdout.trim().split('\n');
  const result = JSON.parse(lines[lines.length - 1]);
  result.status = 'ok';
  result.loadAverageBefore = load;
  // What other processes used of the machine while the case ran: busy time not the case's.
  const after = cpuTimes();
  result.othersCpuShare =
    after.total > before.total
      ? Math.max(0, after.busy - before.busy - result.cpuMs) / (after.total - before.total)
      : 0;
  process.stderr.write('.');
  return result;
}

/** Median figures of a case: total ms per round, tasks/s, µs/task, spread. */
function summarize(result) {
  if (result.status !== 'ok') return { status: result.status, reason: result.reason };
  const ms = median(result.samplesMs);
  return {
    status: 'ok',
    runner: result.params.runner,
    threads: result.params.threads,
    n: result.params.n,
    tasks: result.tasks,
    rounds: result.samplesMs.length,
    medianMs: ms,
    tasksPerSecond: result.tasks / (ms / 1000),
    microsecondsPerTask: (ms * 1000) / result.tasks,
    minMs: Math.min(...result.samplesMs),
    maxMs: Math.max(...result.samplesMs),
    samplesMs: result.samplesMs,
    openMs: result.openMs,
    closeMs: result.closeMs,
    closed: result.closed,
    loadAverageBefore: result.loadAverageBefore,
    othersCpuShare: result.othersCpuShare,
  };
}

const measure = (name, runner, n, extra = {}) =>
  summarize(runCase(name, { runner, threads: THREADS, n, ...ROUNDS, ...extra }));

/** Fraction of all CPUs' time spent busy over `ms`. */
function cpuBusy(ms) {
  const a = cpuTimes();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
  const b = cpuTimes();
  return b.total > a.total ? (b.busy - a.busy) / (b.total - a.total) : 0;
}
/** CPU use by other processes just before the run: above ~10%, the figures suffer. */
const busyBefore = cpuBusy(1000);
const loadBefore = os.loadavg()[0];
process.stderr.write('running');
const calibration = runCase('calibrate', { ms: CPU_TASK_MS });
if (calibration.status !== 'ok') {
  console.error('\ncalibration failed');
  process.exit(1);
}

const trivial = {};
for (const runner of ['dtask', 'dtask-promise-all', 'piscina', 'tinypool', 'raw', 'raw-batched']) {
  trivial[runner] = measure('trivial', runner, N_TRIVIAL);
}
const chain = {};
for (const runner of ['dtask', 'piscina', 'tinypool', 'raw']) {
  chain[runner] = measure('chain', runner, N_CHAIN);
}
// 2,047 small tasks a round: V8 goes on optimising a runtime's code through the first rounds
// (dtask's took 13-66 ms in rounds 1-3 and 4-10 ms after, traced with --trace-opt), so every
// runner gets 3 unmeasured rounds here.
const TREE_WARMUP = 3;
const tree = {};
for (const runner of ['dtask', 'piscina', 'tinypool']) {
  tree[runner] = measure('tree', runner, LEAVES, { warmup: TREE_WARMUP });
}
// CPU-bound work suffers most from other processes on a shared 2-core machine, and only
// ever slows down: two passes in opposite orders, and each case keeps its faster pass.
const cpuCases = [['serial', 1]];
for (const runner of ['dtask', 'piscina', 'tinypool', 'raw']) {
  for (const threads of [1, 2]) cpuCases.push([runner, threads]);
}
// V8's compiler threads go on optimising a runtime's code through the first rounds: with one
// thread they run on the idle core, with two they take time from the workers, so the 2-vs-1
// ratio partly measures that warm-up. dtask's runtime reaches its last TurboFan compilations
// (the worker's `accept`, the scheduler's `pump`) around round 16 of 400 tasks (traced with
// --trace-opt); after 3 warm-up rounds V8's platform threads still used 9-12 ms of CPU a round,
// after 20 about 2 ms (per-thread /proc schedstat). The figure is the steady state: every
// runner gets 8,000 unmeasured tasks here, 20 rounds of 400 (200 of 40 with --quick). V8
// optimises a function after a budget of bytecode run in it, i.e. after so many tasks, not
// rounds: 20 quick rounds (800 tasks) measured dtask's code mid-way, its compiler threads using
// 1.9-2.4 ms of CPU a round taken from the two workers (0.2-0.5 ms after 200, as raw workers').
const CPU_WARMUP_TASKS = 8_000;
const CPU_WARMUP = Math.ceil(CPU_WARMUP_TASKS / N_CPU);
const cpuPasses = [{}, {}];
for (const [pass, order] of [cpuCases, [...cpuCases].reverse()].entries()) {
  for (const [runner, threads] of order) {
    const key = runner === 'serial' ? runner : `${runner}-${threads}`;
    cpuPasses[pass][key] = measure('cpu', runner, N_CPU, {
      threads,
      iterations: calibration.iterations,
      warmup: CPU_WARMUP,
    });
  }
}
const cpu = {};
for (const key of Object.keys(cpuPasses[0])) {
  const [a, b] = [cpuPasses[0][key], cpuPasses[1][key]];
  cpu[key] = !ok(b) || (ok(a) && a.medianMs <= b.medianMs) ? a : b;
  if (ok(cpu[key])) cpu[key].passesMedianMs = [a.medianMs, b.medianMs];
}
process.stderr.write(' done\n');

// ---------------------------------------------------------------------------- figures

/** a ÷ b when both measured. */
const div = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? a / b : undefined);

/** Speed-ups of the CPU-bound workload: 2 threads over the serial loop and over 1 thread. */
const speedups = {};
for (const runner of ['dtask', 'piscina', 'tinypool', 'raw']) {
  const one = cpu[`${runner}-1`];
  const two = cpu[`${runner}-2`];
  speedups[runner] = {
    overSerial: ok(two) && ok(cpu.serial) ? div(cpu.serial.medianMs, two.medianMs) : undefined,
    overOneThread: ok(two) && ok(one) ? div(one.medianMs, two.medianMs) : undefined,
  };
}

const figures = {
  tasksPerSecond: ok(trivial.dtask) ? trivial.dtask.tasksPerSecond : undefined,
  ratioToPiscina: ok(trivial.dtask)
    ? div(trivial.dtask.tasksPerSecond, trivial.piscina.tasksPerSecond)
    : undefined,
  ratioToRaw: ok(trivial.dtask)
    ? div(trivial.dtask.tasksPerSecond, trivial.raw.tasksPerSecond)
    : undefined,
  promiseAllRatioToRaw: ok(trivial['dtask-promise-all'])
    ? div(trivial['dtask-promise-all'].tasksPerSecond, trivial.raw.tasksPerSecond)
    : undefined,
  ratioToTinypool: ok(trivial.dtask)
    ? div(trivial.dtask.tasksPerSecond, trivial.tinypool.tasksPerSecond)
    : undefined,
  chainMicrosecondsPerTask: ok(chain.dtask) ? chain.dtask.microsecondsPerTask : undefined,
  treeMilliseconds: ok(tree.dtask) ? tree.dtask.medianMs : undefined,
  treeMicrosecondsPerTask: ok(tree.dtask) ? tree.dtask.microsecondsPerTask : undefined,
  cpuSpeedupOverSerial: speedups.dtask.overSerial,
  cpuSpeedupOverOneThread: speedups.dtask.overOneThread,
};

const verdict = (x, pass) => (x === undefined ? 'n/a' : pass(x) ? 'PASS' : 'MISS');
const verdicts = {
  tasksPerSecond: verdict(figures.tasksPerSecond, (x) => x >= TARGETS.tasksPerSecond),
  ratioToPiscina: verdict(figures.ratioToPiscina, (x) => x >= TARGETS.ratioToPiscina),
  ratioToRaw: verdict(figures.ratioToRaw, (x) => x >= TARGETS.ratioToRaw),
  chainMicrosecondsPerTask: verdict(
    figures.chainMicrosecondsPerTask,
    (x) => x <= TARGETS.chainMicrosecondsPerTask,
  ),
  cpuSpeedupOverSerial: verdict(figures.cpuSpeedupOverSerial, (x) => x >= TARGETS.cpuSpeedup),
  cpuSpeedupOverOneThread: verdict(figures.cpuSpeedupOverOneThread, (x) => x >= TARGETS.cpuSpeedup),
};

// ---------------------------------------------------------------------------- report

const times = (x) => (x === undefined ? '-' : `${fixed(x)}x`);
/** A figure of a case, or why it has none. */
const cell = (s, f) => {
  if (s === undefined) return '-';
  if (s.status === 'unavailable') return UNAVAILABLE;
  if (s.status !== 'ok') return `failed (${s.reason})`;
  return f(s);
};
/** Above this share of the machine used by other processes, a case is marked as disturbed. */
const DISTURBED = 0.05;
const disturbed = (s) => ok(s) && s.othersCpuShare > DISTURBED;
const mark = (s) => (disturbed(s) ? ` (others ${fixed(s.othersCpuShare * 100, 0)}%)` : '');
const spread = (s) => `${fixed(s.minMs, 0)}-${fixed(s.maxMs, 0)} ms${mark(s)}`;
/** A table row: the label, then each column's figure, or once why the case has none. */
const row = (label, s, columns) =>
  ok(s)
    ? [label, ...columns.map((f) => f(s))]
    : [label, cell(s), ...columns.slice(1).map(() => '')];

/** A verdict as printed: marked when a case it rests on ran beside other busy processes. */
const shown = (v, ...cases) => (cases.some(disturbed) ? `${v} (disturbed)` : v);

const NAMES = {
  dtask: 'dtask threads({ count: 2 })',
  piscina: 'Piscina 5, 2 threads',
  tinypool: 'tinypool 2, 2 threads',
  raw: 'raw worker_threads, 2, one task per message',
  'raw-batched': 'raw worker_threads, 2, 1,000 tasks per message',
};

/** The trivial tasks' rows say how dtask's tasks are gathered. */
const TRIVIAL_NAMES = {
  ...NAMES,
  dtask: 'dtask threads({ count: 2 }), fetchAll(tasks)',
  'dtask-promise-all': 'dtask threads({ count: 2 }), Promise.all(tasks)',
};

const CPU_NAMES = {
  dtask: 'dtask threads({ count })',
  piscina: 'Piscina 5',
  tinypool: 'tinypool 2',
  raw: 'raw worker_threads, all sent at once',
};

const cpuModel = os.cpus()[0]?.model ?? 'unknown cpu';
console.log(
  `\n@dtask/threads benchmark: node ${process.version}, ${os.cpus().length} CPUs (${cpuModel}), ` +
    `load before ${fixed(loadBefore)} (CPUs ${fixed(busyBefore * 100, 0)}% busy), after ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}${quick ? ', QUICK (n/10)' : ''}\n`,
);
console.log(
  table(
    ['figure', 'dtask', 'target', 'result'],
    [
      [
        `(1) trivial tasks, ${int(N_TRIVIAL)} in flight, fetchAll`,
        cell(trivial.dtask, (s) => `${int(s.tasksPerSecond)} tasks/s`),
        `>= ${int(TARGETS.tasksPerSecond)}`,
        shown(verdicts.tasksPerSecond, trivial.dtask),
      ],
      [
        '    dtask tasks/s / Piscina tasks/s',
        times(figures.ratioToPiscina),
        `>= ${TARGETS.ratioToPiscina}x`,
        shown(verdicts.ratioToPiscina, trivial.dtask, trivial.piscina),
      ],
      [
        '    dtask tasks/s / raw worker_threads tasks/s (one per message)',
        times(figures.ratioToRaw),
        `>= ${TARGETS.ratioToRaw}x`,
        shown(verdicts.ratioToRaw, trivial.dtask, trivial.raw),
      ],
      [
        '    the same, tasks gathered with Promise.all',
        times(figures.promiseAllRatioToRaw),
        '',
        '',
      ],
      [
        `(2) chain of ${int(N_CHAIN)} dependent tasks`,
        cell(chain.dtask, (s) => `${fixed(s.microsecondsPerTask)} us/task`),
        `<= ${TARGETS.chainMicrosecondsPerTask}`,
        shown(verdicts.chainMicrosecondsPerTask, chain.dtask),
      ],
      [
        `(3) tree reduction, ${int(LEAVES)} leaves (${int(2 * LEAVES - 1)} tasks)`,
        cell(
          tree.dtask,
          (s) => `${fixed(s.medianMs, 1)} ms, ${fixed(s.microsecondsPerTask)} us/task`,
        ),
        '',
        '',
      ],
      [
        `(4) ${int(N_CPU)} CPU-bound ~${CPU_TASK_MS} ms tasks: 2 threads vs serial loop`,
        cell(cpu['dtask-2'], () => times(speedups.dtask.overSerial)),
        `>= ${TARGETS.cpuSpeedup}x`,
        shown(verdicts.cpuSpeedupOverSerial, cpu.serial, cpu['dtask-2']),
      ],
      [
        '    2 threads vs threads({ count: 1 })',
        cell(cpu['dtask-2'], () => times(speedups.dtask.overOneThread)),
        `>= ${TARGETS.cpuSpeedup}x`,
        shown(verdicts.cpuSpeedupOverOneThread, cpu['dtask-1'], cpu['dtask-2']),
      ],
    ],
  ),
);

const tps = (s) => (ok(s) ? s.tasksPerSecond : undefined);
const isDtask = (runner) => runner.startsWith('dtask');
console.log(`\n(1) trivial independent tasks: ${int(N_TRIVIAL)} x \`x => x + 1\`, all in flight`);
console.log(
  table(
    ['runner', 'tasks/s', 'us/task', 'spread', 'dtask/runner', 'dtask Promise.all/runner'],
    Object.entries(trivial).map(([runner, s]) =>
      row(TRIVIAL_NAMES[runner], s, [
        (x) => int(x.tasksPerSecond),
        (x) => fixed(x.microsecondsPerTask, 3),
        spread,
        (x) => (isDtask(runner) ? '' : times(div(tps(trivial.dtask), x.tasksPerSecond))),
        (x) =>
          isDtask(runner) ? '' : times(div(tps(trivial['dtask-promise-all']), x.tasksPerSecond)),
      ]),
    ),
  ),
);

/** Rows of a latency table: per task, total, runner time ÷ dtask time (> 1: dtask is faster). */
function latencyRows(cases) {
  const base = ok(cases.dtask) ? cases.dtask.medianMs : undefined;
  return Object.entries(cases).map(([runner, s]) =>
    row(NAMES[runner], s, [
      (x) => fixed(x.microsecondsPerTask),
      (x) => fixed(x.medianMs, 1),
      spread,
      (x) => (runner === 'dtask' ? '' : times(div(x.medianMs, base))),
    ]),
  );
}
console.log(
  `\n(2) chain of ${int(N_CHAIN)} dependent tasks (\`t = spawn(inc, t)\`; peers await each ` +
    'result before submitting the next; raw: one postMessage round trip per task)',
);
console.log(
  table(['runner', 'us/task', 'total ms', 'spread', 'runner/dtask (time)'], latencyRows(chain)),
);
console.log(
  `\n(3) tree reduction: ${int(LEAVES)} leaves \`() => 1\`, pairwise \`(a, b) => a + b\` ` +
    `(${int(2 * LEAVES - 1)} tasks); dtask spawns the whole tree at once, pools go level by level`,
);
console.log(
  table(['runner', 'us/task', 'total ms', 'spread', 'runner/dtask (time)'], latencyRows(tree)),
);

console.log(
  `\n(4) ${int(N_CPU)} CPU-bound tasks of ${int(calibration.iterations)} LCG steps ` +
    `(${fixed(calibration.measuredMs, 3)} ms each in the calibrating thread); ` +
    `serial loop: ${cell(cpu.serial, (x) => `${fixed(x.medianMs, 1)} ms${mark(x)}`)}`,
);
console.log(
  table(
    ['runner', '1 thread ms', '2 threads ms', '2 vs 1 thread', '2 threads vs serial'],
    ['dtask', 'piscina', 'tinypool', 'raw'].map((runner) => {
      const [one, two] = [cpu[`${runner}-1`], cpu[`${runner}-2`]];
      return row(CPU_NAMES[runner], ok(one) ? two : one, [
        () => `${fixed(one.medianMs, 1)}${mark(one)}`,
        () => `${fixed(two.medianMs, 1)}${mark(two)}`,
        () => times(speedups[runner].overOneThread),
        () => times(speedups[runner].overSerial),
      ]);
    }),
  ),
);
console.log(
  `\nmedian of ${roundCount} rounds after 1 warm-up (${TREE_WARMUP} for (3), ${CPU_WARMUP} for (4)), full GC before each round (untimed), ` +
    'threads started and ready before timing; (4): the faster of two passes. ' +
    'A wide spread means a noisy machine: run again.',
);
if (busyBefore > 0.1) {
  console.log(
    `WARNING: the CPUs were ${fixed(busyBefore * 100, 0)}% busy in the second before the run: ` +
      'other processes were using them, so these figures (above all the CPU-bound speed-ups) ' +
      'are low. Run again when the machine is idle.',
  );
}
const disturbedCases = Object.entries({ trivial, chain, tree, cpu }).flatMap(([workload, cases]) =>
  Object.entries(cases)
    .filter(([, s]) => disturbed(s))
    .map(([runner]) => `${workload} ${runner}`),
);
if (disturbedCases.length > 0) {
  console.log(
    `WARNING: other processes used more than ${DISTURBED * 100}% of the CPUs during ` +
      `${disturbedCases.join(', ')} (marked "others N%"): those figures are low, and a verdict ` +
      'that rests on them reads "(disturbed)". Run again when the machine is idle.',
  );
}
const unclosed = [trivial, chain, tree, cpu]
  .flatMap((cases) => Object.values(cases))
  .filter((s) => ok(s) && !s.closed)
  .map((s) => `${s.runner} (${s.threads} threads)`);
if (unclosed.length > 0) {
  console.log(`did not close within 10 s: ${[...new Set(unclosed)].join(', ')}`);
}

mkdirSync(dirname(resultsFile), { recursive: true });
const report = {
  benchmark: 'threads',
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpu: cpuModel,
  cpuBusyBefore: busyBefore,
  loadAverageBefore: loadBefore,
  loadAverage: os.loadavg(),
  quick,
  threads: THREADS,
  targets: TARGETS,
  verdicts,
  figures,
  calibration: { iterations: calibration.iterations, measuredMs: calibration.measuredMs },
  trivial,
  chain,
  tree,
  cpuBound: cpu,
  cpuBoundPasses: cpuPasses,
  disturbed: disturbedCases,
  speedups,
  failures,
};
writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
console.log(`results: ${relative(process.cwd(), resultsFile)}`);

if (failures.length > 0) process.exit(1);
if (check && Object.values(verdicts).some((v) => v !== 'PASS')) process.exit(1);

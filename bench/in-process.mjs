// In-process scheduler overhead of @dtask/core, against the built dist.
//   node bench/in-process.mjs [--quick] [--rounds=5] [--check]
// Each measurement runs in a fresh Node process (in-process-cases.mjs), so that one
// measurement's heap and JIT state do not skew another. Prints a table and writes
// bench/results/in-process.json. --check exits 1 when a target is missed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const casesFile = join(here, 'in-process-cases.mjs');
const resultsFile = join(here, 'results', 'in-process.json');

const { quick, rounds: roundCount, check } = parseFlags();

/** The targets. */
const TARGETS = { tasksPerSecond: 1_000_000, bytesPerPendingTask: 500 };
const N_TRIVIAL = quick ? 100_000 : 1_000_000;
const N_CHAIN = quick ? 10_000 : 100_000;
const N_PENDING = quick ? 100_000 : 1_000_000;
const ROUNDS = { rounds: roundCount, warmup: 1 };

/** Runs one case in a fresh process and returns its parsed result. */
function runCase(name, params) {
  const load = os.loadavg()[0];
  const child = spawnSync(
    process.execPath,
    ['--expose-gc', casesFile, name, JSON.stringify(params)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], maxBuffer: 1 << 24 },
  );
  if (child.status !== 0) {
    console.error(`case ${name} ${JSON.stringify(params)} failed (exit ${child.status})`);
    process.exit(1);
  }
  const lines = child.stdout.trim().split('\n');
  const result = JSON.parse(lines[lines.length - 1]);
  result.loadAverageBefore = load;
  process.stderr.write('.');
  return result;
}

/** Median figures of a rounds case: tasks/s and µs/task over the whole round and its parts. */
function summarize(result) {
  const n = result.params.n;
  const total = median(result.samples.map((s) => s.totalMs));
  return {
    n,
    rounds: result.samples.length,
    medianMs: total,
    tasksPerSecond: n / (total / 1000),
    microsecondsPerTask: (total * 1000) / n,
    spawnMicrosecondsPerTask: (median(result.samples.map((s) => s.spawnMs)) * 1000) / n,
    drainMicrosecondsPerTask: (median(result.samples.map((s) => s.drainMs)) * 1000) / n,
    minMs: Math.min(...result.samples.map((s) => s.totalMs)),
    maxMs: Math.max(...result.samples.map((s) => s.totalMs)),
    samplesMs: result.samples.map((s) => s.totalMs),
  };
}

process.stderr.write('running');
const trivial = {};
for (const peer of ['dtask', 'dtask-batched', 'promise', 'promise-batched', 'sync']) {
  trivial[peer] = summarize(runCase('throughput', { peer, n: N_TRIVIAL, ...ROUNDS }));
}
// Awaiting every handle is slow (several promises per task): fewer rounds.
const FEW = { rounds: Math.min(3, roundCount), warmup: 1 };
for (const peer of ['dtask-await-all', 'dtask-fetch-all', 'promise-await-all']) {
  trivial[peer] = summarize(runCase('throughput', { peer, n: N_TRIVIAL, ...FEW }));
}
// Plain promises in a process where one dtask task has run (AsyncLocalStorage enabled).
trivial['promise-batched-after-dtask'] = summarize(
  runCase('throughput', { peer: 'promise-batched', n: N_TRIVIAL, ...ROUNDS, afterDtask: true }),
);
const chain = {};
for (const peer of ['dtask', 'promise', 'sync']) {
  chain[peer] = summarize(runCase('chain', { peer, n: N_CHAIN, ...ROUNDS }));
}
const memory = {};
for (const peer of ['dtask', 'promise']) {
  for (const keep of [false, true]) {
    memory[`${peer}${keep ? '-kept' : ''}`] = runCase('memory', { peer, n: N_PENDING, keep });
  }
}
const allocation = {
  trivial: runCase('allocation', { n: N_PENDING / 5, workload: 'trivial' }),
  chain: runCase('allocation', { n: N_CHAIN, workload: 'chain' }),
};
process.stderr.write(' done\n');

const pass = (ok) => (ok ? 'PASS' : 'MISS');
const verdicts = {
  tasksPerSecond: pass(trivial.dtask.tasksPerSecond >= TARGETS.tasksPerSecond),
  bytesPerPendingTask: pass(memory.dtask.bytesPerTask <= TARGETS.bytesPerPendingTask),
  bytesPerPendingTaskWithHandles: pass(
    memory['dtask-kept'].bytesPerTask <= TARGETS.bytesPerPendingTask,
  ),
};

// ---------------------------------------------------------------------------- report

const ratio = (a, b) => (b > 0 ? `${fixed(a / b, 2)}x` : '-');
/** A row of the peers table: a trivial dtask case against its plain-promise peer. */
const againstPromises = (label, dtaskCase, promiseCase) => {
  const [d, p] = [trivial[dtaskCase].microsecondsPerTask, trivial[promiseCase].microsecondsPerTask];
  return [label, fixed(d, 3), fixed(p, 3), '', ratio(d, p), ''];
};

const cpu = os.cpus()[0]?.model ?? 'unknown cpu';
console.log(
  `\n@dtask/core in-process benchmark: node ${process.version}, ${os.cpus().length} CPUs (${cpu}), ` +
    `load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}${quick ? ', QUICK (n/10)' : ''}\n`,
);
console.log(
  table(
    ['figure', 'dtask', 'target', 'result'],
    [
      [
        `(a) trivial tasks, ${int(N_TRIVIAL)} spawned then last awaited`,
        `${int(trivial.dtask.tasksPerSecond)} tasks/s`,
        `>= ${int(TARGETS.tasksPerSecond)}`,
        verdicts.tasksPerSecond,
      ],
      [
        '    same, in batches of 1,000 (spawn, await last)',
        `${int(trivial['dtask-batched'].tasksPerSecond)} tasks/s`,
        '',
        '',
      ],
      [
        '    same, every handle awaited (Promise.all)',
        `${int(trivial['dtask-await-all'].tasksPerSecond)} tasks/s`,
        '',
        '',
      ],
      [
        '    same, every handle gathered (fetchAll)',
        `${int(trivial['dtask-fetch-all'].tasksPerSecond)} tasks/s`,
        '',
        '',
      ],
      [
        `(b) chain of ${int(N_CHAIN)} dependent tasks`,
        `${fixed(chain.dtask.microsecondsPerTask)} us/task`,
        '',
        '',
      ],
      [
        `(c) heap per pending task (${int(N_PENDING)}), scheduler-held`,
        `${int(memory.dtask.bytesPerTask)} B`,
        `<= ${TARGETS.bytesPerPendingTask}`,
        verdicts.bytesPerPendingTask,
      ],
      [
        '    same, with every handle kept in an array',
        `${int(memory['dtask-kept'].bytesPerTask)} B`,
        `<= ${TARGETS.bytesPerPendingTask}`,
        verdicts.bytesPerPendingTaskWithHandles,
      ],
    ],
  ),
);
console.log('\n(d) peers, same workload and waiting method');
console.log(
  table(
    ['workload', 'dtask', 'Promise', 'sync call', 'dtask/Promise', 'dtask/sync'],
    [
      [
        'trivial, us/task (last awaited)',
        fixed(trivial.dtask.microsecondsPerTask, 3),
        fixed(trivial.promise.microsecondsPerTask, 3),
        fixed(trivial.sync.microsecondsPerTask, 4),
        ratio(trivial.dtask.microsecondsPerTask, trivial.promise.microsecondsPerTask),
        ratio(trivial.dtask.microsecondsPerTask, trivial.sync.microsecondsPerTask),
      ],
      [
        '  of which spawn loop, us/task',
        fixed(trivial.dtask.spawnMicrosecondsPerTask, 3),
        fixed(trivial.promise.spawnMicrosecondsPerTask, 3),
        '',
        ratio(trivial.dtask.spawnMicrosecondsPerTask, trivial.promise.spawnMicrosecondsPerTask),
        '',
      ],
      againstPromises('trivial, us/task (batches of 1,000)', 'dtask-batched', 'promise-batched'),
      againstPromises('trivial, us/task (all awaited)', 'dtask-await-all', 'promise-await-all'),
      againstPromises(
        'trivial, us/task (all gathered: fetchAll)',
        'dtask-fetch-all',
        'promise-await-all',
      ),
      [
        'chain, us/task',
        fixed(chain.dtask.microsecondsPerTask, 3),
        fixed(chain.promise.microsecondsPerTask, 3),
        fixed(chain.sync.microsecondsPerTask, 4),
        ratio(chain.dtask.microsecondsPerTask, chain.promise.microsecondsPerTask),
        ratio(chain.dtask.microsecondsPerTask, chain.sync.microsecondsPerTask),
      ],
      [
        'heap per pending task, B',
        int(memory.dtask.bytesPerTask),
        int(memory.promise.bytesPerTask),
        '',
        ratio(memory.dtask.bytesPerTask, memory.promise.bytesPerTask),
        '',
      ],
      [
        '  with handles kept, B',
        int(memory['dtask-kept'].bytesPerTask),
        int(memory['promise-kept'].bytesPerTask),
        '',
        ratio(memory['dtask-kept'].bytesPerTask, memory['promise-kept'].bytesPerTask),
        '',
      ],
    ],
  ),
);
console.log('\n(e) bytes allocated per task, garbage included (sampled), and where');
for (const [workload, a] of Object.entries(allocation)) {
  const sites = a.sites
    .slice(0, 4)
    .map((x) => `${x.site} ${int(x.bytesPerTask)}`)
    .join('; ');
  console.log(`${workload.padEnd(8)} ${int(a.bytesPerTask)} B/task: ${sites}`);
}
const alsTax = trivial['promise-batched-after-dtask'];
console.log(
  `\nPlain promises (batches of 1,000) in a process where a dtask task has run: ` +
    `${fixed(alsTax.microsecondsPerTask, 3)} us/task, ` +
    `${ratio(alsTax.microsecondsPerTask, trivial['promise-batched'].microsecondsPerTask)} ` +
    'the cost without dtask (AsyncLocalStorage adds a hook to every promise in Node 20).',
);
const spread = (s) => `${fixed(s.minMs, 0)}-${fixed(s.maxMs, 0)} ms`;
console.log(
  `\nmedian of ${roundCount} rounds after 1 warm-up, full GC before each round (untimed); ` +
    `spread of (a): ${spread(trivial.dtask)}, (b): ${spread(chain.dtask)}. ` +
    'A wide spread means a noisy machine: run again.',
);

mkdirSync(dirname(resultsFile), { recursive: true });
const report = {
  benchmark: 'in-process',
  date: new Date().toISOString(),
  node: process.version,
  cpus: os.cpus().length,
  cpu,
  loadAverage: os.loadavg(),
  quick,
  targets: TARGETS,
  verdicts,
  figures: {
    tasksPerSecond: trivial.dtask.tasksPerSecond,
    tasksPerSecondBatched: trivial['dtask-batched'].tasksPerSecond,
    tasksPerSecondAwaitAll: trivial['dtask-await-all'].tasksPerSecond,
    tasksPerSecondFetchAll: trivial['dtask-fetch-all'].tasksPerSecond,
    chainMicrosecondsPerTask: chain.dtask.microsecondsPerTask,
    bytesPerPendingTask: memory.dtask.bytesPerTask,
    bytesPerPendingTaskWithHandles: memory['dtask-kept'].bytesPerTask,
    allocatedBytesPerTrivialTask: allocation.trivial.bytesPerTask,
    allocatedBytesPerChainTask: allocation.chain.bytesPerTask,
    promiseSlowdownAfterDtask:
      alsTax.microsecondsPerTask / trivial['promise-batched'].microsecondsPerTask,
  },
  trivial,
  chain,
  memory,
  allocation,
};
writeFileSync(resultsFile, `${JSON.stringify(report, null, 2)}\n`);
console.log(`results: ${relative(process.cwd(), resultsFile)}`);

if (check && Object.values(verdicts).includes('MISS')) process.exit(1);

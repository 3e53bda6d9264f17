// The same benchmark cases against two built checkouts of dtask, side by side on one machine:
// "before" (another checkout, e.g. a git worktree of an older commit) and "after" (this one).
//   node bench/compare.mjs --base=/path/to/other/checkout [--runs=3] [--quick]
// Both checkouts run THIS checkout's case scripts (copied into <base>/bench/.compare/, so that
// they import the base checkout's built packages): only dtask differs, never the measuring code.
// The two sides alternate case by case and run by run (A B A B ...), so a machine that slows
// down slows both alike. Each case prints the median of its runs' medians and the spread
// (lowest and highest run), the ratio after/before, and the limit it is measured against where
// there is one (raw worker_threads, a plain loop) from the same runs.
// Writes bench/results/compare.json (BENCHMARKS.md's "before and after" tables).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, median, Results, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));

function flags() {
  const out = { base: undefined, runs: 3, quick: false };
  for (const arg of process.argv.slice(2)) {
    const [key, value] = arg.replace(/^--/, '').split('=');
    if (key === 'base' && value) out.base = resolve(value);
    else if (key === 'runs' && Number.isInteger(Number(value)) && Number(value) > 0)
      out.runs = Number(value);
    else if (key === 'quick' && value === undefined) out.quick = true;
    else {
      console.error(`unknown or malformed flag ${arg}; known: --base=DIR, --runs=N, --quick`);
      process.exit(2);
    }
  }
  if (!out.base || !existsSync(join(out.base, 'packages', 'core', 'dist'))) {
    console.error('--base=DIR must name another dtask checkout whose packages are built');
    process.exit(2);
  }
  return out;
}

const { base, runs, quick } = flags();
const scale = quick ? 10 : 1;

/** Median milliseconds of a case's rounds, from either case script's output. */
const roundsMs = (r) => median(r.samplesMs ?? r.samples.map((s) => s.totalMs));

/** µs per task of a case's median round. */
const perTask = (r) => (roundsMs(r) * 1000) / r.params.n;

/** Runs `script` (with `args`) from `dir`; returns its last stdout line, or exits naming why. */
function runScript(dir, script, args) {
  const child = spawnSync(process.execPath, ['--expose-gc', join(dir, script), ...args], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
    timeout: 15 * 60_000,
  });
  if (child.status !== 0) {
    console.error(`${script} ${args.join(' ')} in ${dir} failed (exit ${child.status}):`);
    console.error(`${child.stderr}`.trim().split('\n').slice(-8).join('\n'));
    process.exit(1);
  }
  const lines = child.stdout.trim().split('\n');
  return lines[lines.length - 1];
}

/** A job running one case of a case script; its one figure is `figure` of the JSON it prints. */
const caseJob = (group, name, script, kase, params, { tree = true, figure = perTask } = {}) => ({
  group,
  tree,
  run: (dir) => ({
    [name]: figure(JSON.parse(runScript(dir, script, [kase, JSON.stringify(params)]))),
  }),
});

/** A job running a whole benchmark script; `pick` reads its figures from the results it wrote. */
const scriptJob = (group, script, args, pick) => ({
  group,
  tree: true,
  run: (dir) => {
    runScript(dir, script, args);
    return pick(
      JSON.parse(readFileSync(join(dir, 'results', `${script.replace('.mjs', '')}.json`), 'utf8')),
    );
  },
});

const perTaskOf = (ms, n) => (ms * 1000) / n;

/**
 * The jobs. `tree: false` runs once per run, outside both checkouts (raw transports do not depend
 * on dtask): the limit of its group.
 */
const JOBS = [
  caseJob(
    'in-process (µs/task)',
    'trivial, spawned then last awaited',
    'in-process-cases.mjs',
    'throughput',
    { peer: 'dtask', n: 1_000_000 / scale, rounds: 5, warmup: 1 },
  ),
  caseJob(
    'in-process (µs/task)',
    'trivial, batches of 1,000',
    'in-process-cases.mjs',
    'throughput',
    { peer: 'dtask-batched', n: 1_000_000 / scale, rounds: 5, warmup: 1 },
  ),
  caseJob('in-process (µs/task)', 'chain', 'in-process-cases.mjs', 'chain', {
    peer: 'dtask',
    n: 100_000 / scale,
    rounds: 5,
    warmup: 1,
  }),
  ...['trivial', 'chain'].flatMap((kind) => {
    const params = (runner) => ({
      runner,
      threads: 2,
      n: (kind === 'trivial' ? 200_000 : 10_000) / scale,
      rounds: 5,
      warmup: 2,
      roundTimeoutMs: 60_000,
    });
    const group = `threads ${kind} (µs/task)`;
    return [
      caseJob(group, 'dtask, 2 threads', 'threads-cases.mjs', kind, params('dtask')),
      caseJob(
        group,
        'raw worker_threads, one task per message',
        'threads-cases.mjs',
        kind,
        params('raw'),
        { tree: false },
      ),
    ];
  }),
  scriptJob('processes (µs/task)', 'processes.mjs', quick ? ['--quick'] : [], (r) => ({
    'trivial, dtask 2 processes': perTaskOf(r.trivial.dtask.medianMs, r.sizes.n),
    'trivial, raw IPC (same run)': perTaskOf(r.trivial['raw IPC'].medianMs, r.sizes.n),
    'chain, dtask 2 processes': perTaskOf(r.chain.dtask.medianMs, r.sizes.chain),
    'chain, raw IPC round trip (same run)': perTaskOf(r.chain['raw IPC'].medianMs, r.sizes.chain),
  })),
  scriptJob(
    'cluster.mjs (µs/task; tree, move: ms)',
    'cluster.mjs',
    quick ? ['--quick'] : [],
    (r) => ({
      'trivial, dtask': 1e6 / r.trivial.dtask.tasksPerSecond,
      'chain, dtask': r.chain.dtask.microsecondsPerTask,
      'tree of 1,024 leaves, dtask (ms)': r.tree.dtask.ms,
      'move 64 MiB, dtask (ms)': r.move64MiB.dtask.ms,
    }),
  ),
];

const SCRIPTS = [
  'in-process-cases.mjs',
  'threads-cases.mjs',
  'processes.mjs',
  'cluster.mjs',
  'shared.mjs',
  'fixtures',
];

/** Copies this checkout's benchmark scripts into `tree`'s bench folder; returns where they are. */
function scriptsFor(tree) {
  if (tree === resolve(here, '..')) return here;
  const to = join(tree, 'bench', '.compare');
  rmSync(to, { recursive: true, force: true });
  mkdirSync(to, { recursive: true });
  for (const f of SCRIPTS) cpSync(join(here, f), join(to, f), { recursive: true });
  return to;
}

const commit = (tree) =>
  execFileSync('git', ['-C', tree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim();
const sides = [
  { label: 'before', tree: base, dir: scriptsFor(base), commit: commit(base) },
  { label: 'after', tree: resolve(here, '..'), dir: here, commit: commit(resolve(here, '..')) },
];

/** figures[group][name][side] = one value per run. */
const figures = {};
const note = (group, side, values) => {
  for (const [name, v] of Object.entries(values)) {
    figures[group] ??= {};
    figures[group][name] ??= { before: [], after: [], limit: [] };
    figures[group][name][side].push(v);
  }
};
const loads = [];
process.stderr.write(`comparing ${sides[0].commit} (before) with ${sides[1].commit} (after)`);
for (let run = 0; run < runs; run++) {
  loads.push(os.loadavg()[0]);
  // Alternate which side goes first, so neither always runs on a warmer or cooler machine.
  const order = run % 2 === 0 ? sides : [...sides].reverse();
  for (const job of JOBS) {
    if (!job.tree) note(job.group, 'limit', job.run(here));
    else for (const side of order) note(job.group, side.label, job.run(side.dir));
    process.stderr.write('.');
  }
}
process.stderr.write('\n');
if (sides[0].dir !== here) rmSync(sides[0].dir, { recursive: true, force: true });

const spread = (xs) => `${fixed(Math.min(...xs))}-${fixed(Math.max(...xs))}`;
const results = new Results('compare', {
  before: sides[0].commit,
  after: sides[1].commit,
  runs,
  quick,
  loadAverages: loads,
});
const rows = [];
for (const [group, byName] of Object.entries(figures)) {
  for (const [name, f] of Object.entries(byName)) {
    // One table per group in BENCHMARKS.md: each case before and after, and the limit.
    results.data[group] ??= {};
    if (f.limit.length) {
      results.data[group][`${name} (limit)`] = { value: median(f.limit) };
      rows.push([group, name, '', fixed(median(f.limit)), '', spread(f.limit)]);
      continue;
    }
    const [b, a] = [median(f.before), median(f.after)];
    results.data[group][`${name}, before`] = { value: b };
    results.data[group][`${name}, after`] = { value: a };
    const spreads = `${spread(f.before)} | ${spread(f.after)}`;
    rows.push([group, name, fixed(b), fixed(a), `${fixed(a / b)}x`, spreads]);
  }
}
console.log(
  `dtask ${sides[0].commit} (before) against ${sides[1].commit} (after), ${runs} alternating runs` +
    `${quick ? ' (--quick: figures not comparable with full runs)' : ''}, node ${process.version}, ` +
    `${os.cpus().length} CPUs, load ${loads.map((l) => fixed(l)).join(' ')}\n`,
);
const head = [
  'group',
  'case',
  'before',
  'after',
  'after/before',
  'spread of runs (before | after)',
];
console.log(table(head, rows));
console.log(
  "\nEach figure: the median over runs of each run's own figure (a median round). A row with " +
    'only an "after" value is a raw transport measured in the same runs: the limit.',
);
console.log(`results: ${results.write()}`);

// @dtask/threads against Dask distributed (Debian's python3-distributed; `bash
// scripts/bench-deps.sh` installs it), the same workloads at the same sizes, in the same run:
// trivial independent tasks, a chain of dependent tasks, a tree reduction. Dask runs a
// LocalCluster of 2 worker processes with one thread each; dtask runs threads({ count: 2 }).
//   node bench/dask.mjs [--quick] [--rounds=5]
// Prints a table with ratios and writes bench/results/dask.json. Without Dask it says why and
// exits 0 (the dtask rows still run).
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'dask.json');
const { quick, rounds } = parseFlags();

// Dask does about 600 tasks/s here, so the sizes are small enough for it to finish in seconds.
const SIZES = { n: quick ? 500 : 2_000, chain: quick ? 100 : 300, leaves: quick ? 128 : 512 };
const WARMUP = 1;

/** The Python that can import distributed ($DTASK_BENCH_PYTHON first), or undefined. */
function findPython() {
  for (const py of [process.env.DTASK_BENCH_PYTHON, 'python3', '/usr/bin/python3']) {
    if (!py) continue;
    const r = spawnSync(py, ['-c', 'import distributed'], { stdio: 'ignore' });
    if (r.status === 0) return py;
  }
  return undefined;
}

/** Medians of the dask cases, or { status, reason } when Dask cannot run. */
function runDask() {
  const python = findPython();
  if (!python) {
    return {
      status: 'unavailable',
      reason: 'no python3 here imports distributed: run `bash scripts/bench-deps.sh`',
    };
  }
  const params = { ...SIZES, rounds, warmup: WARMUP, workers: 2 };
  const r = spawnSync(python, [join(here, 'fixtures', 'dask_cases.py'), JSON.stringify(params)], {
    encoding: 'utf8',
    timeout: 900_000,
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0)
    return { status: 'failed', reason: (r.stderr || String(r.error)).slice(-500) };
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return { status: 'ok', version: out.version, ...medians(out) };
}

/** dtask's medians for the same workloads (bench/threads-cases.mjs, one process per case). */
function runDtask() {
  const cases = { trivial: SIZES.n, chain: SIZES.chain, tree: SIZES.leaves };
  const out = {};
  for (const [name, n] of Object.entries(cases)) {
    const params = { runner: 'dtask', threads: 2, n, rounds, warmup: WARMUP };
    const r = spawnSync(
      process.execPath,
      ['--expose-gc', join(here, 'threads-cases.mjs'), name, JSON.stringify(params)],
      { encoding: 'utf8', timeout: 300_000, maxBuffer: 1 << 24 },
    );
    if (r.status !== 0) return { status: 'failed', reason: r.stderr.slice(-500) };
    out[name] = JSON.parse(r.stdout.trim().split('\n').at(-1)).samplesMs;
  }
  return { status: 'ok', ...medians(out) };
}

function medians(samples) {
  return {
    trivialMs: median(samples.trivial),
    chainMs: median(samples.chain),
    treeMs: median(samples.tree),
  };
}

const dtask = runDtask();
const dask = runDask();
const tasks = { trivial: SIZES.n, chain: SIZES.chain, tree: 2 * SIZES.leaves - 1 };
const cell = (r, key, count, perSecond) => {
  if (r.status !== 'ok') return r.status;
  const ms = r[key];
  return perSecond ? `${int(count / (ms / 1000))} /s` : `${fixed((ms * 1000) / count, 1)} µs/task`;
};
const ratio = (key) =>
  dtask.status === 'ok' && dask.status === 'ok' ? `${fixed(dask[key] / dtask[key], 1)}×` : '';

console.log(
  `# dtask vs Dask distributed${dask.version ? ` ${dask.version}` : ''}, 2 workers, Node ${process.version}, ${os.cpus().length} cores, median of ${rounds}`,
);
console.log(
  table(
    ['workload', 'dtask threads(2)', 'Dask LocalCluster(2×1)', 'Dask time ÷ dtask'],
    [
      [
        `${int(SIZES.n)} trivial tasks, all gathered`,
        cell(dtask, 'trivialMs', tasks.trivial, true),
        cell(dask, 'trivialMs', tasks.trivial, true),
        ratio('trivialMs'),
      ],
      [
        `chain of ${SIZES.chain}`,
        cell(dtask, 'chainMs', tasks.chain),
        cell(dask, 'chainMs', tasks.chain),
        ratio('chainMs'),
      ],
      [
        `tree, ${SIZES.leaves} leaves (${tasks.tree} tasks)`,
        cell(dtask, 'treeMs', tasks.tree),
        cell(dask, 'treeMs', tasks.tree),
        ratio('treeMs'),
      ],
    ],
  ),
);
if (dask.status !== 'ok') console.log(`Dask: ${dask.status}: ${dask.reason}`);
if (dtask.status !== 'ok') console.log(`dtask: ${dtask.status}: ${dtask.reason}`);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  `${JSON.stringify({ date: new Date().toISOString(), sizes: SIZES, rounds, dtask, dask }, null, 2)}\n`,
);
console.log(`results: ${relative(process.cwd(), resultsFile)}`);
if (dtask.status === 'failed' || dask.status === 'failed') process.exit(1);

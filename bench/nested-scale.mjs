// Nested spawns as workers grow: for 2, 4 and 8 local worker processes on this machine (with
// `--sim`: 8, 64, 256 and 1,024 simulated members, `simulatedCluster`, one scheduler), trees of
// trivial nested tasks (4 children each; 6 deep, 5,460 nested tasks a tree, for processes; 4
// deep, 340 a tree, for simulated members) rooted on each worker process (simulated: on each
// member, and at least 256 trees) at once, so every task but the roots is spawned inside a task
// on a worker. Figures: nested tasks per second (all trees' nested tasks over the wall time of a
// round) and the scheduler process's CPU per nested task. Each measurement runs in a fresh
// process (`fixtures/nested-case.mjs`). With `--before=<checkout>` (a built checkout of older
// code, e.g. one where every nested spawn went through the scheduler), the same case runs on
// that code too, alternated with this one in every round, so load on the machine falls on
// both alike.
//   node bench/nested-scale.mjs [--quick] [--sim] [--rounds=3] [--before=/path/to/checkout]
// Prints a table and writes bench/results/nested-scale.json (nested-scale-sim.json with --sim).
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const sim = process.argv.includes('--sim');
const resultsFile = join(here, 'results', sim ? 'nested-scale-sim.json' : 'nested-scale.json');
const { quick, rounds } = parseFlags(
  process.argv.slice(2).filter((a) => !a.startsWith('--before=') && a !== '--sim'),
  3,
);
const before = process.argv.find((a) => a.startsWith('--before='))?.slice('--before='.length);
const COUNTS = sim ? (quick ? [8, 64] : [8, 64, 256, 1024]) : quick ? [2, 8] : [2, 4, 8];
const DEPTH = sim ? (quick ? 3 : 4) : quick ? 5 : 6;
const TIMED = quick ? 2 : 3;

/** A folder with the case's files whose `@dtask/*` imports resolve into `checkout`. */
function caseFolder(checkout) {
  const dir = mkdtempSync(join(tmpdir(), 'dtask-nested-bench-'));
  mkdirSync(join(dir, 'node_modules', '@dtask'), { recursive: true });
  for (const p of ['core', 'cluster']) {
    symlinkSync(join(checkout, 'packages', p), join(dir, 'node_modules', '@dtask', p));
  }
  for (const f of ['nested-case.mjs', 'nested-tree.mjs']) {
    copyFileSync(join(here, 'fixtures', f), join(dir, f));
  }
  return dir;
}

const codes = { after: join(here, 'fixtures') };
if (before) codes.before = caseFolder(before);

/** A case that runs longer than this (ms) is killed and counted as hung. */
const CASE_TIMEOUT_MS = sim ? 300_000 : 120_000;

/** Runs the case for `workers` on `code`; its JSON report, or undefined if it hung. */
function measure(code, workers) {
  const r = spawnSync(
    process.execPath,
    [
      join(codes[code], 'nested-case.mjs'),
      String(workers),
      String(DEPTH),
      String(TIMED),
      ...(sim ? ['sim'] : []),
    ],
    { cwd: here, encoding: 'utf8', timeout: CASE_TIMEOUT_MS, killSignal: 'SIGKILL' },
  );
  if (r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGKILL') return undefined;
  if (r.status !== 0) throw new Error(`${code}, ${workers} workers: exit ${r.status}\n${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').at(-1));
}

const hung = new Map();

const seen = new Map();
for (let r = 0; r < rounds; r++) {
  for (const w of COUNTS) {
    for (const code of Object.keys(codes)) {
      const m = measure(code, w);
      const key = `${code} ${w}`;
      if (!seen.has(key)) seen.set(key, []);
      if (m === undefined) {
        hung.set(key, (hung.get(key) ?? 0) + 1);
        process.stderr.write(
          `round ${r + 1}, ${code}, ${w} workers: hung (killed after ${CASE_TIMEOUT_MS / 1000} s)\n`,
        );
        continue;
      }
      for (let i = 0; i < m.ms.length; i++) {
        seen.get(key).push({
          perSecond: m.nestedPerRound / (m.ms[i] / 1000),
          schedUsPerTask: (m.schedCpuMs[i] * 1000) / m.nestedPerRound,
          placedShare: m.placedByWorkers / (m.placedByWorkers + m.scheduled),
        });
      }
      process.stderr.write(
        `round ${r + 1}, ${code}, ${w} workers: ${m.ms.map((x) => int(m.nestedPerRound / (x / 1000))).join(', ')} nested tasks/s; scheduler CPU ${m.schedCpuMs.map((x) => fixed((x * 1000) / m.nestedPerRound, 1)).join(', ')} µs per task\n`,
      );
    }
  }
}

const results = { date: new Date().toISOString(), sim, depth: DEPTH, rounds, before, cases: {} };
const rows = [];
for (const [key, xs] of seen) {
  if (xs.length === 0) {
    results.cases[key] = { hung: hung.get(key) };
    rows.push([key, 'hung', '', '', '', String(hung.get(key))]);
    continue;
  }
  const per = xs.map((x) => x.perSecond);
  const row = {
    nestedPerSecond: median(per),
    min: Math.min(...per),
    max: Math.max(...per),
    schedUsPerTask: median(xs.map((x) => x.schedUsPerTask)),
    placedByWorkersShare: xs[0].placedShare,
    hungRuns: hung.get(key) ?? 0,
  };
  results.cases[key] = row;
  rows.push([
    key,
    int(row.nestedPerSecond),
    `${int(row.min)}–${int(row.max)}`,
    fixed(row.schedUsPerTask, 1),
    `${Math.round(100 * row.placedByWorkersShare)}%`,
    String(row.hungRuns),
  ]);
}
console.log(
  table(
    [
      'code, workers',
      'nested tasks/s',
      'spread',
      'scheduler µs CPU/task',
      'placed by workers',
      'hung runs',
    ],
    rows,
  ),
);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(results, null, 2)}\n`);

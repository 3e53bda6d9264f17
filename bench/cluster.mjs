// @dtask/cluster against Dask distributed, 2 worker processes each, in the same run: trivial
// independent tasks (all gathered), a chain, a 2,047-task tree, and 64 MiB made on one worker
// and read on the other (against a raw copy of 64 MiB from another process over a loopback TCP
// socket into one buffer, and the older in-process stream figure; bench/shared.mjs). dtask's
// tasks are scoped to the worker processes, so the main process only schedules.
//   node bench/cluster.mjs [--quick] [--rounds=5]
// Prints a table with ratios and writes bench/results/cluster.json. Without Dask it says why
// (run `bash scripts/bench-deps.sh`) and the dtask rows still run.
import { spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, relative } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { cluster } from '@dtask/cluster';
import { Context, scope } from '@dtask/core';
import {
  fixed,
  int,
  median,
  parseFlags,
  rawProcessCopyMs,
  rawTcpCopyMs,
  settle,
  table,
} from './shared.mjs';

// Between rounds the main process collects its dropped task handles (settle), so the workers
// free the 64 MiB results of earlier rounds. Outside the timed part.

const here = dirname(fileURLToPath(import.meta.url));
const resultsFile = join(here, 'results', 'cluster.json');
const { quick, rounds } = parseFlags();
const SIZES = { n: quick ? 2_000 : 10_000, chain: quick ? 200 : 1_000, leaves: 1024 };
const DASK_SIZES = { n: quick ? 500 : 2_000, chain: quick ? 100 : 300, leaves: 1024 };
const MOVE_BYTES = 64 * 1024 * 1024;

async function time(fn) {
  const samples = [];
  for (let w = 0; w < 3; w++) await fn(); // warm-up: the JIT settles after a few rounds
  for (let r = 0; r < rounds; r++) {
    const t0 = performance.now();
    const inner = await fn(); // a case may time its own part and return it
    samples.push(typeof inner === 'number' ? inner : performance.now() - t0);
    await settle();
  }
  return median(samples);
}

async function runDtask() {
  const plugin = cluster({ workers: 2 });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  const [a, b] = plugin.processWorkers().map((w) => w.worker);
  const on = { scope: scope({ workers: [a, b] }) };
  const inc = (x) => x + 1;
  const add = (x, y) => x + y;
  const one = () => 1;
  try {
    const trivialMs = await time(async () => {
      const ts = [];
      for (let i = 0; i < SIZES.n; i++) ts.push(ctx.spawn(on, inc, i));
      let s = 0;
      for (const t of ts) s += await t;
      if (s !== (SIZES.n * (SIZES.n + 1)) / 2) throw new Error('wrong trivial sum');
    });
    const chainMs = await time(async () => {
      let t = ctx.spawn(on, inc, 0);
      for (let i = 1; i < SIZES.chain; i++) t = ctx.spawn(on, inc, t);
      if ((await t) !== SIZES.chain) throw new Error('wrong chain');
    });
    const treeMs = await time(async () => {
      let level = Array.from({ length: SIZES.leaves }, () => ctx.spawn(on, one));
      while (level.length > 1) {
        const next = [];
        for (let i = 0; i < level.length; i += 2)
          next.push(ctx.spawn(on, add, level[i], level[i + 1]));
        level = next;
      }
      if ((await level[0]) !== SIZES.leaves) throw new Error('wrong tree');
    });
    const moveMs = await time(async () => {
      // Made on a; read on b (the timed part includes making it: measured alone below).
      const made = ctx.spawn(
        { scope: scope({ worker: a }) },
        (n) => new Uint8Array(n).fill(1),
        MOVE_BYTES,
      );
      await ctx.spawn({ scope: scope({ worker: a }) }, (x) => x.length, made);
      const t0 = performance.now();
      const got = await ctx.spawn({ scope: scope({ worker: b }) }, (x) => x.length, made);
      if (got !== MOVE_BYTES) throw new Error('wrong move');
      return performance.now() - t0;
    });
    return { status: 'ok', trivialMs, chainMs, treeMs, moveMs };
  } finally {
    await ctx.close();
  }
}

function runDask() {
  let python;
  for (const py of [process.env.DTASK_BENCH_PYTHON, 'python3', '/usr/bin/python3']) {
    if (py && spawnSync(py, ['-c', 'import distributed'], { stdio: 'ignore' }).status === 0) {
      python = py;
      break;
    }
  }
  if (!python)
    return {
      status: 'unavailable',
      reason: 'no python3 imports distributed: run `bash scripts/bench-deps.sh`',
    };
  const params = { ...DASK_SIZES, rounds, warmup: 1, workers: 2 };
  const r = spawnSync(python, [join(here, 'fixtures', 'dask_cases.py'), JSON.stringify(params)], {
    encoding: 'utf8',
    timeout: 900_000,
    maxBuffer: 1 << 24,
  });
  if (r.status !== 0)
    return { status: 'failed', reason: (r.stderr || String(r.error)).slice(-500) };
  const out = JSON.parse(r.stdout.trim().split('\n').at(-1));
  return {
    status: 'ok',
    version: out.version,
    trivialMs: median(out.trivial),
    chainMs: median(out.chain),
    treeMs: median(out.tree),
  };
}

const dtask = await runDtask();
const raw = await rawProcessCopyMs(MOVE_BYTES, time);
const stream = await rawTcpCopyMs(MOVE_BYTES, time);
const dask = runDask();
const perSecond = (n, ms) => `${int(n / (ms / 1000))} /s`;
const perTask = (n, ms) => `${fixed((ms * 1000) / n, 1)} µs/task`;
const rows = [
  [
    'trivial tasks, all gathered',
    perSecond(SIZES.n, dtask.trivialMs),
    dask.status === 'ok' ? perSecond(DASK_SIZES.n, dask.trivialMs) : dask.status,
    dask.status === 'ok'
      ? `${fixed(SIZES.n / dtask.trivialMs / (DASK_SIZES.n / dask.trivialMs), 0)}×`
      : '',
  ],
  [
    'chain',
    perTask(SIZES.chain, dtask.chainMs),
    dask.status === 'ok' ? perTask(DASK_SIZES.chain, dask.chainMs) : dask.status,
    dask.status === 'ok'
      ? `${fixed(dask.chainMs / DASK_SIZES.chain / (dtask.chainMs / SIZES.chain), 0)}×`
      : '',
  ],
  [
    `tree, ${SIZES.leaves} leaves (${2 * SIZES.leaves - 1} tasks)`,
    `${fixed(dtask.treeMs, 1)} ms`,
    dask.status === 'ok' ? `${fixed(dask.treeMs, 1)} ms` : dask.status,
    dask.status === 'ok' ? `${fixed(dask.treeMs / dtask.treeMs, 0)}×` : '',
  ],
  [
    '64 MiB worker → worker',
    `${fixed(dtask.moveMs, 1)} ms (${int(MOVE_BYTES / 2 ** 20 / (dtask.moveMs / 1000))} MiB/s)`,
    `raw copy: ${fixed(raw, 1)} ms (in-process stream ${fixed(stream, 1)} ms)`,
    `${fixed((100 * raw) / dtask.moveMs, 0)}% of raw copy`,
  ],
];
console.log(
  `# dtask cluster vs Dask distributed${dask.version ? ` ${dask.version}` : ''}, 2 worker processes each, Node ${process.version}, ${os.cpus().length} cores, median of ${rounds}`,
);
console.log(
  table(['workload', 'dtask cluster(2)', 'Dask LocalCluster(2×1)', 'dtask ÷ Dask speed'], rows),
);
if (dask.status !== 'ok') console.log(`Dask: ${dask.status}: ${dask.reason}`);
/**
 * What BENCHMARKS.md reads: each workload's figures per runner in the same unit (the two ran
 * different sizes), and what was measured as it was (`measured`, not tabulated).
 */
function resultsJson() {
  const ok = dask.status === 'ok';
  const peer = (f) => (ok ? f() : { status: dask.status });
  return {
    date: new Date().toISOString(),
    sizes: SIZES,
    daskSizes: DASK_SIZES,
    rounds,
    trivial: {
      dtask: { tasksPerSecond: SIZES.n / (dtask.trivialMs / 1000) },
      dask: peer(() => ({ tasksPerSecond: DASK_SIZES.n / (dask.trivialMs / 1000) })),
    },
    chain: {
      dtask: { microsecondsPerTask: (dtask.chainMs * 1000) / SIZES.chain },
      dask: peer(() => ({ microsecondsPerTask: (dask.chainMs * 1000) / DASK_SIZES.chain })),
    },
    tree: { dtask: { ms: dtask.treeMs }, dask: peer(() => ({ ms: dask.treeMs })) },
    move64MiB: {
      dtask: { ms: dtask.moveMs },
      rawCopy: { ms: raw },
      rawInProcessStream: { ms: stream },
    },
    measured: { dtask, dask, rawCopyMs: raw, rawInProcessStreamMs: stream },
  };
}

mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(resultsFile, `${JSON.stringify(resultsJson(), null, 2)}\n`);
console.log(`results: ${relative(process.cwd(), resultsFile)}`);

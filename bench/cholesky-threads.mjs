// Where the tiled Cholesky's time goes, thread by thread: `cholesky` (examples of
// @dtask/datadeps, `spawnDatadeps` on 2 worker threads) and the hand-written raw scheduler
// (fixtures/cholesky-peers.mjs) factorise the same 1024² matrix in tiles of 128, alternately in
// one process, as bench/datadeps.mjs --quick times them; for each, the median wall time, the
// medians of the alternated pairs' ratios, and the CPU of each thread of the process
// (`/proc/self/task/*/schedstat`: the main thread, the threads that ran each runner's tiles, and
// the rest, V8's helper threads) per factorisation, and how long each tile thread slept
// (its wall time less the CPU it ran and the time it waited runnable for a core: the time it
// had no task to run; schedstat moves at ticks and context switches, so a few ms either way).
// Linux only.
//   node bench/cholesky-threads.mjs [--rounds=30] [--warmup=20] [--root=DIR] [--resolved]
//   chrt -f 1 node bench/cholesky-threads.mjs --raise ...
// --root=DIR runs another built checkout's packages (DIR/packages/*/dist) and raw scheduler, so
// that code before and after a change can be run alternately, each beside its raw scheduler.
// --resolved adds the raw peer whose worker threads resolve the dependencies themselves
// through shared counters (`workerResolved`): what a scheduler whose main thread is off the
// critical path could reach at best. --raise, under `chrt -f 1` (SCHED_FIFO, so that other
// processes' threads preempt none of this one's), raises the main thread to priority 2 once the
// workers have started, so that it runs when woken as on a quiet machine.
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { threadSchedstat } from './fixtures/thread-cpu.mjs';
import { median, parseFlags, table } from './shared.mjs';

const rootArg = process.argv.find((a) => a.startsWith('--root='));
const switches = ['--resolved', '--raise'];
const [withResolved, raise] = switches.map((s) => process.argv.includes(s));
const root = resolve(
  rootArg ? rootArg.slice('--root='.length) : join(fileURLToPath(import.meta.url), '../..'),
);
const { rounds, warmup } = parseFlags(
  process.argv.slice(2).filter((a) => a !== rootArg && !switches.includes(a)),
  30,
  20,
);
const from = (path) => import(pathToFileURL(join(root, path)).href);
const { Context } = await from('packages/core/dist/index.js');
const { threads } = await from('packages/threads/dist/index.js');
const { cholesky, spdMatrix } = await from('packages/datadeps/dist/examples/index.js');
const { handWritten } = await from('bench/fixtures/cholesky-peers.mjs');
// Not in every checkout --root may name: always this one's (it runs no dtask code).
const { workerResolved } = await import('./fixtures/cholesky-peers.mjs');

const N = 1024;
const TILE = 128;
const TASKS = 120; // for 8 × 8 tiles: potrf 8, trsm 28, syrk 28, gemm 56

const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
const original = spdMatrix(N, 1);
const a = { ...original, data: new Float64Array(new SharedArrayBuffer(8 * N * N)) };
const raw = await handWritten(a, TILE);
const resolved = withResolved ? await workerResolved(a, TILE) : undefined;
const runs = { dtask: () => cholesky(a, TILE, ctx.spawn.bind(ctx)), raw: raw.run };
if (resolved) runs.resolved = resolved.run;
const names = Object.keys(runs);
if (raise) execFileSync('chrt', ['-f', '-p', '2', String(process.pid)]);
const ms = Object.fromEntries(names.map((name) => [name, []]));
/** Per runner: milliseconds of CPU by thread id, summed over the timed rounds. */
const cpu = Object.fromEntries(names.map((name) => [name, new Map()]));
/** Per runner: milliseconds its tile threads slept, summed over the timed rounds. */
const asleep = Object.fromEntries(names.map((name) => [name, 0]));
for (let r = 0; r < warmup + rounds; r++) {
  for (const name of r % 2 === 0 ? names : [...names].reverse()) {
    a.data.set(original.data);
    const c0 = threadSchedstat();
    const t0 = performance.now();
    await runs[name]();
    const t = performance.now() - t0;
    const c1 = threadSchedstat();
    if (r < warmup) continue;
    ms[name].push(t);
    const ran = [];
    for (const [tid, [ns, queued]] of c1) {
      const [ns0, queued0] = c0.get(tid) ?? [0, 0];
      cpu[name].set(tid, (cpu[name].get(tid) ?? 0) + (ns - ns0) / 1e6);
      if (tid !== String(process.pid)) ran.push([(ns - ns0) / 1e6, (queued - queued0) / 1e6]);
    }
    // The tile threads are the two that ran the most in this factorisation.
    for (const [run, queued] of ran.sort((x, y) => y[0] - x[0]).slice(0, 2)) {
      asleep[name] += t - run - queued;
    }
  }
}
await raw.close();
await resolved?.close();
await ctx.close();

const main = String(process.pid);
/** A runner's CPU a factorisation: the main thread, its two busiest threads, the rest. */
function split(name) {
  const per = [...cpu[name]].map(([tid, total]) => [tid, total / rounds]);
  const others = per.filter(([tid]) => tid !== main).sort((x, y) => y[1] - x[1]);
  const workers = others.slice(0, 2).map(([, v]) => v);
  const rest = others.slice(2).reduce((s, [, v]) => s + v, 0);
  return { main: cpu[name].get(main) / rounds, workers, rest };
}
const pairs = ms.dtask.map((d, i) => ms.raw[i] / d);
const titles = {
  dtask: 'spawnDatadeps, 2 worker threads',
  raw: 'hand-written raw scheduler',
  resolved: 'raw, dependencies resolved by the workers',
};
const rows = names.map((name) => {
  const s = split(name);
  return [
    titles[name],
    median(ms[name]).toFixed(1),
    s.main.toFixed(2),
    ((s.main * 1000) / TASKS).toFixed(1),
    s.workers.map((w) => w.toFixed(1)).join(' + '),
    s.rest.toFixed(2),
    (asleep[name] / rounds / 2).toFixed(2),
  ];
});
const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(
  `\nCholesky ${N}², tiles of ${TILE}, ${root}: ${rounds} rounds after ${warmup}, load ${load}; CPU in ms a factorisation\n`,
);
console.log(
  table(
    [
      'runner',
      'wall ms',
      'main',
      'main µs/task',
      'tile threads',
      'other threads',
      'a tile thread asleep',
    ],
    rows,
  ),
);
if (resolved) {
  const ratio = median(ms.dtask.map((d, i) => ms.resolved[i] / d)).toFixed(3);
  console.log(
    `spawnDatadeps ÷ raw with its dependencies resolved by the workers: ${ratio} (pairs)`,
  );
}
console.log(
  `spawnDatadeps ÷ raw: ${(median(ms.raw) / median(ms.dtask)).toFixed(3)} (medians), ${median(pairs).toFixed(3)} (median of the pairs' ratios)`,
);

// Run as `node nested-main.mjs <case> <workers>` by cluster-nested.test.ts: a plain program, as
// a user writes it, whose tasks on worker processes spawn trees of nested tasks (5 deep, 4
// children each: 1,365 tasks a tree), which those workers place themselves. One tree is rooted
// on each worker process. It prints one line of JSON and must exit 0.
//   tree: the trees run; their sums, and how many tasks the workers placed themselves
//   kill: once the workers have begun to finish nested tasks, the first worker process is
//         SIGKILLed while its tree is still running: everything is recomputed, exact
import { cluster } from '@dtask/cluster';
import { configure, everywhere, scope, shutdown, spawn } from '@dtask/core';

const which = process.argv[2] ?? 'tree';
const workers = Number(process.argv[3] ?? 3);
const plugin = cluster({ workers });
const ctx = configure({ plugins: [plugin] });
await ctx.ready();
const url = new URL('./nested-tasks.mjs', import.meta.url);
await everywhere(url);
const { tree } = await import(url.href);

const depth = 5;
const fanout = 4;
const n = fanout ** depth;
const ms = which === 'kill' ? 60 : 1;
const ids = plugin.processWorkers().map((w) => w.worker);
const roots = ids.map((worker, i) =>
  spawn({ scope: scope({ worker }) }, tree, depth, fanout, i * n, ms),
);
const expected = ids.map((_, i) => i * n * n + (n * (n - 1)) / 2);

let killed;
if (which === 'kill') {
  // Nested tasks placed by the workers themselves have begun to finish (they report every 50 ms).
  while (ctx.stats().tasks.placedByWorkers.finished === 0) {
    await new Promise((r) => setTimeout(r, 5));
  }
  const victim = plugin.processWorkers()[0];
  killed = { worker: victim.worker, midTree: !roots[0].isReady() };
  process.kill(victim.child.pid, 'SIGKILL');
}
const sums = await Promise.all(roots);
await new Promise((r) => setTimeout(r, 200)); // the workers' last reports
const stats = ctx.stats().tasks;
await shutdown();
console.log(
  JSON.stringify({
    sums,
    expected,
    killed,
    scheduled: stats.spawned,
    placedByWorkers: stats.placedByWorkers,
    perTree: (n * fanout - 1) / (fanout - 1),
  }),
);

// Run as `node many-workers-main.mjs <workers> [startTimeoutMs]` by
// cluster-many-workers.test.ts: a plain program, as a user writes it, on that many local worker
// processes. Trivial tasks, 20 on each worker, gathered with fetchAll, then a chain of dependent
// tasks that hops from worker to worker (each result moves over a peer link made on demand),
// then shutdown(). It prints one line of JSON: the sums it got and expected, how many workers
// ran tasks, the connected sockets of the busiest worker and the time to ready. It must exit 0.
import { spawnSync } from 'node:child_process';
import { cluster } from '@dtask/cluster';
import { configure, fetchAll, scope, shutdown } from '@dtask/core';

const workers = Number(process.argv[2] ?? 32);
// 32 processes starting at once on a loaded 2-core machine may take longer to join than the
// default 30 s (the test gives the whole program 120 s): a user there would allow as long.
const startTimeoutMs = Number(process.argv[3] ?? 100_000);
const t0 = performance.now();
const plugin = cluster({ workers, startTimeoutMs });
const ctx = configure({ plugins: [plugin] });
await ctx.ready();
const readyMs = Math.round(performance.now() - t0);
const ids = plugin.processWorkers().map((w) => w.worker);

const n = 20 * workers;
const tasks = Array.from({ length: n }, (_, i) =>
  ctx.spawn({ scope: scope({ worker: ids[i % ids.length] }) }, (x) => [x * 2, process.pid], i),
);
const values = await fetchAll(tasks);
const sum = values.reduce((s, [v]) => s + v, 0);
const ranOn = new Set(values.map(([, pid]) => pid)).size;

// A chain over every worker in turn: each link of it reads the previous result where it was made.
let t = ctx.spawn({ scope: scope({ worker: ids[0] }) }, () => new Float64Array(1000).fill(1));
for (let i = 1; i < 2 * ids.length; i++) {
  t = ctx.spawn({ scope: scope({ worker: ids[i % ids.length] }) }, (v) => v.map((x) => x + 1), t);
}
const chain = (await t).reduce((s, x) => s + x, 0);

const ss = spawnSync('ss', ['-H', '-x', '-t', '-n', '-p', 'state', 'established'], {
  encoding: 'utf8',
  maxBuffer: 1 << 26,
});
const pids = new Set(plugin.processWorkers().map((w) => w.child.pid));
const perPid = new Map();
for (const line of ss.stdout?.split('\n') ?? []) {
  // As the tests' connectedSockets counts: not an end whose other end has closed (a worker's
  // standard input, which brought its secret).
  if (/^u_\w+\s+\d+\s+\d+\s+\S+\s+\d+\s+\*\s+0\s/.test(line)) continue;
  const pid = Number(/pid=(\d+),/.exec(line)?.[1]);
  if (pids.has(pid)) perPid.set(pid, (perPid.get(pid) ?? 0) + 1);
}
const socketsMax = ss.status === 0 ? Math.max(0, ...perPid.values()) : null;
await shutdown();
console.log(
  JSON.stringify({
    workers: ids.length,
    sum,
    expected: n * (n - 1),
    ranOn,
    chain,
    chainExpected: 1000 * 2 * ids.length,
    socketsMax,
    readyMs,
  }),
);

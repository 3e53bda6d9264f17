// One scheduler and a simulated cluster (@dtask/cluster/testing's `simulatedCluster`): 8, 64,
// 256 and 1,024 members, each with its own authenticated socket and heartbeat link to the
// scheduler, hosted 256 to a process, running trivial tasks with core's worker runtime. Per
// size, in a fresh process: time to ready, tasks/s through the scheduler (independent trivial
// tasks, default placement, all gathered), the scheduler's CPU per task (placement, sending,
// completion), the scheduler's memory per member (RSS and heap after a full GC, against the
// same process before the cluster started), and the sockets (links) and descriptors held by
// the scheduler and by the hosts.
//   node bench/sim-cluster.mjs [--quick] [--rounds=3]
// --quick: 8 and 64 members, fewer tasks (a smoke test; figures not comparable). Prints a table
// and writes bench/results/sim-cluster.json.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readdirSync, readlinkSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { fixed, int, median, parseFlags, table } from './shared.mjs';

const here = fileURLToPath(import.meta.url);
const resultsFile = join(dirname(here), 'results', 'sim-cluster.json');

/** Open descriptors of process `pid`, and how many are sockets. */
function descriptors(pid = 'self') {
  let fds = 0;
  let sockets = 0;
  for (const fd of readdirSync(`/proc/${pid}/fd`)) {
    fds++;
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`).startsWith('socket:')) sockets++;
    } catch {
      // closed meanwhile
    }
  }
  return { fds, sockets };
}

async function runCase(members, n, rounds) {
  const { simulatedCluster } = await import('@dtask/cluster/testing');
  const { Context } = await import('@dtask/core');
  const gc = globalThis.gc;
  gc();
  const before = { ...process.memoryUsage(), ...descriptors() };
  const t0 = performance.now();
  const plugin = simulatedCluster({ members });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  const readyMs = performance.now() - t0;
  const inc = (x) => x + 1;
  const round = async () => {
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const ts = [];
    for (let i = 0; i < n; i++) ts.push(ctx.spawn(inc, i));
    let sum = 0;
    for (const t of ts) sum += await t;
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    if (sum !== (n * (n + 1)) / 2) throw new Error('wrong sum');
    return { perSec: (n / ms) * 1000, cpuUs: (cpu.user + cpu.system) / n };
  };
  for (let w = 0; w < 2; w++) await round(); // the JIT and the cost model settle
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    samples.push(await round());
  }
  gc();
  await new Promise((r) => setTimeout(r, 100));
  gc();
  const after = { ...process.memoryUsage(), ...descriptors() };
  const hosts = plugin.hostPids().map((pid) => descriptors(pid));
  const tasksPerSec = samples.map((s) => s.perSec);
  await ctx.close();
  return {
    members,
    tasks: n,
    readyMs,
    tasksPerSec,
    cpuUsPerTask: median(samples.map((s) => s.cpuUs)),
    rssPerMemberKiB: (after.rss - before.rss) / members / 1024,
    heapPerMemberKiB: (after.heapUsed - before.heapUsed) / members / 1024,
    rssMiB: after.rss / 2 ** 20,
    schedulerSockets: after.sockets - before.sockets,
    schedulerFds: after.fds,
    hostSockets: hosts.reduce((a, h) => a + h.sockets, 0),
    hostFds: hosts.reduce((a, h) => a + h.fds, 0),
    hosts: hosts.length,
  };
}

if (process.argv[2] === 'case') {
  const [members, n, rounds] = process.argv.slice(3).map(Number);
  const result = await runCase(members, n, rounds);
  process.stdout.write(`${JSON.stringify(result)}\n`);
  process.exit(0);
}

const { quick, rounds } = parseFlags(process.argv.slice(2), 3);
const sizes = quick ? [8, 64] : [8, 64, 256, 1024];
const n = quick ? 5_000 : 50_000;
const results = [];
for (const members of sizes) {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', here, 'case', String(members), String(n), String(rounds)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 },
  );
  const line = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || !line?.startsWith('{')) {
    console.error(`${members} members: the case failed (status ${run.status})`);
    process.exit(1);
  }
  results.push(JSON.parse(line));
}
const spread = (xs) => `${int(Math.min(...xs))}–${int(Math.max(...xs))}`;
console.log(
  table(
    [
      'members',
      'ready (s)',
      'tasks/s (median)',
      'spread',
      'sched µs/task',
      'RSS/member (KiB)',
      'heap/member (KiB)',
      'sched RSS (MiB)',
      'sched sockets',
      'host sockets',
      'fds sched/hosts',
    ],
    results.map((r) => [
      r.members,
      fixed(r.readyMs / 1000, 1),
      int(median(r.tasksPerSec)),
      spread(r.tasksPerSec),
      fixed(r.cpuUsPerTask, 1),
      fixed(r.rssPerMemberKiB, 0),
      fixed(r.heapPerMemberKiB, 1),
      int(r.rssMiB),
      r.schedulerSockets,
      r.hostSockets,
      `${r.schedulerFds}/${r.hostFds}`,
    ]),
  ),
);
console.log(
  `${n} trivial tasks per round, ${rounds} rounds after 2 warm-up; ${os.cpus().length} cores, load ${os
    .loadavg()
    .map((x) => x.toFixed(1))
    .join(' ')}`,
);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  JSON.stringify({ date: new Date().toISOString(), n, rounds, results }, null, 2),
);

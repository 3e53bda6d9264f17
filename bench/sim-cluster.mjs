// One scheduler and a simulated cluster (@dtask/cluster/testing's `simulatedCluster`): 8, 64,
// 256 and 1,024 members, each with its own authenticated socket and heartbeat link to the
// scheduler, hosted 256 to a process, running trivial tasks with core's worker runtime. Per
// size, in a fresh process: time to ready, tasks/s through the scheduler (independent trivial
// tasks, default placement, all gathered), the scheduler's CPU per task (placement, sending,
// completion; and of it placement's, from a CPU profile of one more round: the share of its
// samples inside `candidatesOf` and `chooseSlot`) and the hosts' CPU per task (all simulated
// members together), the write and read calls and bytes per task of the scheduler (its socket
// traffic: frames to and from the members, heartbeat probes) and the hosts' writes per task, the scheduler's memory per member (RSS and heap after a full GC, against
// the same process before the cluster started), and the sockets (links) and descriptors held
// by the scheduler and by the hosts.
// With `--before=<checkout>` (a built checkout of older code) each size runs on that code too,
// alternated with this one `--runs` times (default 1), so load on the machine falls on both
// alike; `--sizes=8,1024` picks the sizes.
//   node bench/sim-cluster.mjs [--quick] [--rounds=3] [--runs=2] [--sizes=...] [--before=...]
// --quick: 8 and 64 members, fewer tasks (a smoke test; figures not comparable). Prints a table
// and writes bench/results/sim-cluster.json.
import { spawnSync } from 'node:child_process';
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
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

/** CPU time (user + system, µs) of process `pid` so far, from /proc (10 ms ticks). */
function cpuOf(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * Write and read system calls (each a frame or a few, corked) and bytes written and read by
 * process `pid` so far, from /proc/<pid>/io (sockets only, once running: nothing else is read
 * or written).
 */
function ioOf(pid = 'self') {
  const io = {};
  for (const line of readFileSync(`/proc/${pid}/io`, 'utf8').trim().split('\n')) {
    const [key, value] = line.split(': ');
    io[key] = Number(value);
  }
  return { writes: io.syscw, reads: io.syscr, out: io.wchar, in: io.rchar };
}

/** Functions whose time is placement: which processors a task may use, and which one it gets. */
const PLACEMENT = new Set(['candidatesOf', 'chooseSlot']);

/**
 * Runs `round` once more under the CPU profiler; the share of the scheduler's samples (idle
 * left out) taken inside placement (`PLACEMENT`, with what they call).
 */
async function profiled(round) {
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.start');
  await round();
  const { profile } = await session.post('Profiler.stop');
  session.disconnect();
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map();
  for (const node of profile.nodes) for (const c of node.children ?? []) parent.set(c, node.id);
  const inPlacement = new Map();
  const placed = (id) => {
    if (id === undefined) return false;
    if (!inPlacement.has(id)) {
      const name = byId.get(id).callFrame.functionName;
      inPlacement.set(id, PLACEMENT.has(name) || placed(parent.get(id)));
    }
    return inPlacement.get(id);
  };
  let busy = 0;
  let placing = 0;
  for (const id of profile.samples) {
    if (byId.get(id).callFrame.functionName === '(idle)') continue;
    busy++;
    if (placed(id)) placing++;
  }
  return busy === 0 ? 0 : placing / busy;
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
  const hostsCpu = () => plugin.hostPids().reduce((sum, pid) => sum + cpuOf(pid), 0);
  const hostsIo = () =>
    plugin
      .hostPids()
      .map((pid) => ioOf(pid))
      .reduce((a, b) => ({ writes: a.writes + b.writes, reads: a.reads + b.reads }));
  const round = async () => {
    const io0 = ioOf();
    const hostsIo0 = hostsIo();
    const hosts0 = hostsCpu();
    const cpu0 = process.cpuUsage();
    const start = performance.now();
    const ts = [];
    for (let i = 0; i < n; i++) ts.push(ctx.spawn(inc, i));
    let sum = 0;
    for (const t of ts) sum += await t;
    const ms = performance.now() - start;
    const cpu = process.cpuUsage(cpu0);
    if (sum !== (n * (n + 1)) / 2) throw new Error('wrong sum');
    const io = ioOf();
    const hio = hostsIo();
    return {
      writesPerTask: (io.writes - io0.writes) / n,
      readsPerTask: (io.reads - io0.reads) / n,
      bytesOutPerTask: (io.out - io0.out) / n,
      bytesInPerTask: (io.in - io0.in) / n,
      hostWritesPerTask: (hio.writes - hostsIo0.writes) / n,
      perSec: (n / ms) * 1000,
      cpuUs: (cpu.user + cpu.system) / n,
      hostsCpuUs: (hostsCpu() - hosts0) / n,
    };
  };
  for (let w = 0; w < 2; w++) await round(); // the JIT and the cost model settle
  const samples = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    samples.push(await round());
  }
  const placementShare = await profiled(round);
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
    cpuUs: samples.map((s) => s.cpuUs),
    cpuUsPerTask: median(samples.map((s) => s.cpuUs)),
    placementUsPerTask: placementShare * median(samples.map((s) => s.cpuUs)),
    hostsCpuUsPerTask: median(samples.map((s) => s.hostsCpuUs)),
    writesPerTask: median(samples.map((s) => s.writesPerTask)),
    readsPerTask: median(samples.map((s) => s.readsPerTask)),
    bytesOutPerTask: median(samples.map((s) => s.bytesOutPerTask)),
    bytesInPerTask: median(samples.map((s) => s.bytesInPerTask)),
    hostWritesPerTask: median(samples.map((s) => s.hostWritesPerTask)),
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

const ownFlags = ['--before=', '--runs=', '--sizes='];
const flag = (name) =>
  process.argv.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3) ?? undefined;
const { quick, rounds } = parseFlags(
  process.argv.slice(2).filter((a) => !ownFlags.some((f) => a.startsWith(f))),
  3,
);
const before = flag('before');
const runs = Number(flag('runs') ?? 1);
const sizes = flag('sizes')?.split(',').map(Number) ?? (quick ? [8, 64] : [8, 64, 256, 1024]);
const n = quick ? 5_000 : 50_000;

/** A folder with this script whose `@dtask/*` imports resolve into `checkout`. */
function caseFolder(checkout) {
  const dir = mkdtempSync(join(os.tmpdir(), 'dtask-sim-bench-'));
  mkdirSync(join(dir, 'node_modules', '@dtask'), { recursive: true });
  for (const p of ['core', 'cluster']) {
    symlinkSync(join(checkout, 'packages', p), join(dir, 'node_modules', '@dtask', p));
  }
  for (const f of ['sim-cluster.mjs', 'shared.mjs'])
    copyFileSync(join(dirname(here), f), join(dir, f));
  return join(dir, 'sim-cluster.mjs');
}
const codes = { after: here };
if (before) codes.before = caseFolder(before);

/** One size on one code, in a fresh process; its JSON report. */
function measure(code, members) {
  const run = spawnSync(
    process.execPath,
    ['--expose-gc', codes[code], 'case', String(members), String(n), String(rounds)],
    { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'], timeout: 600_000 },
  );
  const line = run.stdout.trim().split('\n').pop();
  if (run.status !== 0 || !line?.startsWith('{')) {
    console.error(`${code}, ${members} members: the case failed (status ${run.status})`);
    process.exit(1);
  }
  return JSON.parse(line);
}

const loads = [];
const results = [];
for (const members of sizes) {
  const seen = Object.fromEntries(Object.keys(codes).map((c) => [c, []]));
  for (let r = 0; r < runs; r++) {
    for (const code of Object.keys(codes)) {
      loads.push(os.loadavg()[0]);
      const m = measure(code, members);
      seen[code].push(m);
      console.error(
        `${code}, ${members} members: ${m.tasksPerSec.map(int).join(', ')} tasks/s; scheduler ${m.cpuUs.map((x) => fixed(x, 1)).join(', ')} µs/task; hosts ${fixed(m.hostsCpuUsPerTask, 1)} µs/task; ready ${fixed(m.readyMs / 1000, 1)} s`,
      );
    }
  }
  for (const [code, ms] of Object.entries(seen)) {
    // Pooled over the runs: every timed round's figures; the rest from the median run.
    const mid = [...ms].sort((a, b) => median(a.tasksPerSec) - median(b.tasksPerSec))[
      Math.floor(ms.length / 2)
    ];
    results.push({
      ...mid,
      code,
      tasksPerSec: ms.flatMap((m) => m.tasksPerSec),
      cpuUs: ms.flatMap((m) => m.cpuUs),
      cpuUsPerTask: median(ms.flatMap((m) => m.cpuUs)),
      hostsCpuUsPerTask: median(ms.map((m) => m.hostsCpuUsPerTask)),
      placementUsPerTask: median(ms.map((m) => m.placementUsPerTask)),
      readyMs: median(ms.map((m) => m.readyMs)),
    });
  }
}
const spread = (xs) => `${int(Math.min(...xs))}–${int(Math.max(...xs))}`;
console.log(
  table(
    [
      ...(before ? ['code'] : []),
      'members',
      'ready (s)',
      'tasks/s (median)',
      'spread',
      'sched µs/task',
      'placement µs/task',
      'hosts µs/task',
      'sched writes/reads per task',
      'sched bytes out/in per task',
      'host writes/task',
      'RSS/member (KiB)',
      'heap/member (KiB)',
      'sched RSS (MiB)',
      'sched sockets',
      'host sockets',
      'fds sched/hosts',
    ],
    results.map((r) => [
      ...(before ? [r.code] : []),
      r.members,
      fixed(r.readyMs / 1000, 1),
      int(median(r.tasksPerSec)),
      spread(r.tasksPerSec),
      fixed(r.cpuUsPerTask, 1),
      fixed(r.placementUsPerTask, 2),
      fixed(r.hostsCpuUsPerTask, 1),
      `${fixed(r.writesPerTask, 3)}/${fixed(r.readsPerTask, 3)}`,
      `${fixed(r.bytesOutPerTask, 1)}/${fixed(r.bytesInPerTask, 1)}`,
      fixed(r.hostWritesPerTask, 3),
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
  `${n} trivial tasks per round, ${rounds} rounds after 2 warm-up, ${runs} run(s) per code and size; ${os.cpus().length} cores, load average (1 min) at the starts ${fixed(Math.min(...loads), 1)}–${fixed(Math.max(...loads), 1)}`,
);
mkdirSync(dirname(resultsFile), { recursive: true });
writeFileSync(
  resultsFile,
  JSON.stringify({ date: new Date().toISOString(), n, rounds, runs, before, results }, null, 2),
);

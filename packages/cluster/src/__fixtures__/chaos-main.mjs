// Run as `node chaos-main.mjs [seed]` by cluster-chaos.test.ts: a random 2,000-task DAG on
// two local worker processes while 5 of them are SIGKILLed at random times. Every task's
// value is checked against a sequential evaluation of the same DAG. Prints one JSON line
// ({ seed, tasks, kills, killsWhileRunning, wrong, ms }) and exits 0 only when every value is
// right and all 5 kills came while the DAG ran. For stress runs by hand, CHAOS_KILLS sets the
// number of kills (at 15, an input lost while a task waited for another once reached that task
// as `undefined` in about one run in four) and CHAOS_WATCHDOG_MS when a hang is reported.

import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn, stats } from '@dtask/core';

const TASKS = 2000;
const KILLS = Number(process.env.CHAOS_KILLS ?? 5);
const WIDTH = 20; // tasks per layer: 100 layers
const seed = Number(process.argv[2] ?? Date.now() % 1e9);

/** A small seeded generator (mulberry32), so a failing DAG can be run again. */
function random(s) {
  return () => {
    s = (s + 0x6d2b79f5) | 0;
    let t = Math.imul(s ^ (s >>> 15), 1 | s);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const rand = random(seed);

// Task i of layer L takes 1 to 3 inputs from the layer before, or from any earlier one.
const inputs = Array.from({ length: TASKS }, (_, i) => {
  const layer = Math.floor(i / WIDTH);
  if (layer === 0) return [];
  const count = 1 + Math.floor(rand() * 3);
  return Array.from({ length: count }, () => {
    const from = rand() < 0.8 ? layer - 1 : Math.floor(rand() * layer);
    return from * WIDTH + Math.floor(rand() * WIDTH);
  });
});

/** What task `i` computes from its inputs (self-contained: it travels as source). */
const step = (i, ms, ...xs) =>
  new Promise((resolve) =>
    setTimeout(() => {
      let v = i + 1;
      for (const x of xs) v = (v * 31 + x) % 1_000_000_007;
      resolve(v);
    }, ms),
  );
const combine = (i, xs) => {
  let v = i + 1;
  for (const x of xs) v = (v * 31 + x) % 1_000_000_007;
  return v;
};
const expected = [];
for (let i = 0; i < TASKS; i++)
  expected.push(
    combine(
      i,
      inputs[i].map((j) => expected[j]),
    ),
  );

const plugin = cluster({ workers: 2 });
const ctx = configure({ plugins: [plugin] });
await ctx.ready();
const on = { scope: scope({ workers: plugin.processWorkers().map((w) => w.worker) }) };
const start = performance.now();
const tasks = [];
for (let i = 0; i < TASKS; i++)
  tasks.push(spawn(on, step, i, 30, ...inputs[i].map((j) => tasks[j])));

// Five SIGKILLs at random times, each of a worker process that is serving at that moment.
let kills = 0;
const killer = (async () => {
  while (kills < KILLS) {
    await new Promise((r) => setTimeout(r, 150 + rand() * 350));
    const live = plugin.processWorkers().filter((w) => w.wasReady && w.child?.pid);
    if (live.length === 0) continue;
    const w = live[Math.floor(rand() * live.length)];
    process.kill(w.child.pid, 'SIGKILL');
    kills++;
  }
})();

// A hang is the failure this program exists to catch: past WATCHDOG_MS it prints what is
// still waiting (tasks, their inputs, each worker process's state, the scheduler's counts)
// and exits 3, so a run that hangs says why.
const WATCHDOG_MS = Number(process.env.CHAOS_WATCHDOG_MS ?? 200_000);
const settled = new Array(TASKS).fill(false);
for (const [i, t] of tasks.entries()) {
  t.then(
    () => (settled[i] = true),
    () => (settled[i] = true),
  );
}
const watchdog = setTimeout(() => {
  const waiting = settled.flatMap((done, i) => (done ? [] : [i]));
  const first = waiting.slice(0, 10).map((i) => ({
    task: i,
    id: tasks[i].id,
    inputs: inputs[i].map((j) => ({
      task: j,
      settled: settled[j],
      state: tasks[j].state,
      proc: tasks[j].proc?.id,
    })),
    inFlightOn: plugin
      .processWorkers()
      .flatMap((w) => [...w.members.values()])
      .filter((m) => m.connection.inFlight?.get(tasks[i].id) === tasks[i])
      .map((m) => m.proc.id),
    // The scheduler's record of it (internal fields, for the report only).
    state: tasks[i].state,
    proc: tasks[i].proc?.id,
    waiting: tasks[i].waiting,
    flags: tasks[i].flags,
    extra: tasks[i].extra,
  }));
  const workers = plugin.processWorkers().map((w) => ({
    worker: w.worker,
    exited: w.exited,
    wasReady: w.wasReady,
    joined: w.joinedAt !== undefined,
    heartbeat: w.heartbeat !== undefined,
    pid: w.child?.pid,
    members: [...w.members.values()].map((m) => ({
      thread: m.proc.id,
      wasReady: m.wasReady,
      link: m.link !== undefined,
    })),
  }));
  const sched = ctx.scheduler;
  const slots = [...sched.slotById.values()].map((sl) => ({
    id: sl.proc.id,
    removed: sl.removed,
    inFlight: sl.inFlight,
    sentLoad: sl.sentLoad,
    load: sl.load,
    backlog: [...sl.backlog].map((t) => `${t.id}:${t.state}:${t.waiting}`).slice(0, 20),
    connectionInFlight: sl.executor.inFlight?.size,
  }));
  const ready = sched.ready.length;
  const running = [...sched.running].slice(0, 10).map((t) => ({
    id: t.id,
    state: t.state,
    proc: t.proc?.id,
    flags: t.flags,
    waiting: t.waiting,
    kills: t.extra?.kills,
    args: t.args
      .filter((a) => typeof a === 'object' && a !== null && 'state' in a)
      .map((a) => `${a.id}:${a.state}:${a.proc?.id}:${a.value?.constructor?.name}`),
  }));
  console.error(JSON.stringify({ slots, ready, running, losses: sched.losses }));
  const { tasks: counts, processors } = stats();
  console.error(
    JSON.stringify({
      hung: true,
      seed,
      kills,
      waiting: waiting.length,
      first,
      workers,
      counts,
      processors: processors.map((p) => ({ id: p.id, removed: p.removed, tasks: p.tasks })),
    }),
  );
  process.exit(3);
}, WATCHDOG_MS);
watchdog.unref();

const values = [];
for (const t of tasks) values.push(await t);
const killsWhileRunning = kills;
await killer;
clearTimeout(watchdog);
const wrong = values.filter((v, i) => v !== expected[i]).length;
if (wrong > 0) {
  // The wrong values whose own inputs were right: where the error entered.
  const roots = values.flatMap((v, i) =>
    v !== expected[i] && inputs[i].every((j) => values[j] === expected[j])
      ? [{ task: i, got: v, expected: expected[i], inputs: inputs[i] }]
      : [],
  );
  console.error(JSON.stringify({ wrongRoots: roots.slice(0, 10) }));
}
const ms = Math.round(performance.now() - start);
console.log(JSON.stringify({ seed, tasks: values.length, kills, killsWhileRunning, wrong, ms }));
await shutdown();
process.exitCode = wrong === 0 && killsWhileRunning === KILLS ? 0 : 1;

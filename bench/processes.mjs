// @dtask/cluster's per-task overhead across processes against the transports under it, all in
// one run: 2 worker processes (tasks scoped to them, so the main process only schedules)
// against 2 forked children answering over raw `child_process` IPC (one message per task, and
// batches of 1,000) and over a raw loopback TCP socket (one 8-byte message per task).
//   node bench/processes.mjs [--quick] [--rounds=N]
// Trivial: n tasks `x => x + 1`, all in flight, all gathered (raw: sent round-robin, replies
// counted). Chain: dependent tasks, `t = spawn(inc, t)` (raw: one round trip per task to one
// child). Median of the rounds after 3 warm-ups; runners alternate round by round, so a
// machine that slows down slows all of them alike. Writes bench/results/processes.json.
import { fork } from 'node:child_process';
import { once } from 'node:events';
import { connect } from 'node:net';
import os from 'node:os';
import { dirname, join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { cluster } from '@dtask/cluster';
import { Context, scope } from '@dtask/core';
import { fixed, int, median, parseFlags, Results, table } from './shared.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const { quick, rounds } = parseFlags();
const N = quick ? 2_000 : 10_000;
const CHAIN = quick ? 200 : 1_000;
const BATCH = 1_000;
const WARMUP = 3;
const sumOf = (n) => (n * (n + 1)) / 2;

function check(ok, what) {
  if (!ok) throw new Error(`verification failed: ${what}`);
}

/** dtask: `cluster({ workers: 2 })`, tasks scoped to the two worker processes. */
async function dtaskRunner() {
  const plugin = cluster({ workers: 2 });
  const ctx = new Context({ plugins: [plugin] });
  await ctx.ready();
  const on = { scope: scope({ workers: plugin.processWorkers().map((w) => w.worker) }) };
  const inc = (x) => x + 1;
  return {
    async trivial(n) {
      const ts = new Array(n);
      for (let i = 0; i < n; i++) ts[i] = ctx.spawn(on, inc, i);
      const values = await Promise.all(ts);
      let s = 0;
      for (const v of values) s += v;
      check(s === sumOf(n), 'trivial sum');
    },
    async chain(n) {
      let t = ctx.spawn(on, inc, 0);
      for (let i = 1; i < n; i++) t = ctx.spawn(on, inc, t);
      check((await t) === n, 'chain end value');
    },
    close: () => ctx.close(),
  };
}

/** Two children of fixtures/raw-echo.mjs, and a socket to each. */
async function rawChildren() {
  const children = [];
  for (let i = 0; i < 2; i++) {
    const child = fork(join(here, 'fixtures', 'raw-echo.mjs'));
    const [{ port }] = await once(child, 'message');
    const socket = connect({ port, host: '127.0.0.1', noDelay: true });
    await once(socket, 'connect');
    children.push({ child, socket });
  }
  return children;
}

/** Raw IPC: one `process.send` per task (or per batch of `batch` tasks), round-robin. */
function ipcRunner(children, batch) {
  const kids = children.map((c) => c.child);
  return {
    trivial(n) {
      return new Promise((resolve) => {
        let got = 0;
        let sum = 0;
        const onReply = (m) => {
          if (typeof m === 'number') {
            sum += m;
            got++;
          } else if (Array.isArray(m)) {
            for (const v of m) sum += v;
            got += m.length;
          }
          if (got === n) {
            for (const k of kids) k.off('message', onReply);
            check(sum === sumOf(n), 'raw IPC sum');
            resolve();
          }
        };
        for (const k of kids) k.on('message', onReply);
        if (batch === 0) for (let i = 0; i < n; i++) kids[i & 1].send(i);
        else
          for (let i = 0, b = 0; i < n; i += batch, b++) {
            const part = new Array(Math.min(batch, n - i));
            for (let j = 0; j < part.length; j++) part[j] = i + j;
            kids[b & 1].send(part);
          }
      });
    },
    chain(n) {
      const k = kids[0];
      return new Promise((resolve) => {
        const onReply = (x) => {
          if (x < n) k.send(x);
          else {
            k.off('message', onReply);
            check(x === n, 'raw IPC chain end');
            resolve();
          }
        };
        k.on('message', onReply);
        k.send(0);
      });
    },
  };
}

/** Raw loopback TCP: one 8-byte write per task (the child answers each read in one write). */
function socketRunner(children) {
  const sockets = children.map((c) => c.socket);
  const f64 = (x) => {
    const b = Buffer.allocUnsafe(8);
    b.writeDoubleLE(x, 0);
    return b;
  };
  /** Calls `each(value)` for every 8-byte answer on `socket` until it returns true. */
  const answers = (socket, each) =>
    new Promise((resolve) => {
      let rest = Buffer.alloc(0);
      const onData = (chunk) => {
        const data = rest.length > 0 ? Buffer.concat([rest, chunk]) : chunk;
        const whole = data.length - (data.length % 8);
        rest = data.subarray(whole);
        for (let o = 0; o < whole; o += 8) {
          if (each(data.readDoubleLE(o))) {
            socket.off('data', onData);
            resolve();
            return;
          }
        }
      };
      socket.on('data', onData);
    });
  return {
    async trivial(n) {
      let got = 0;
      let sum = 0;
      const done = sockets.map((s) =>
        answers(s, (v) => {
          sum += v;
          return ++got === n || got > n;
        }),
      );
      for (let i = 0; i < n; i++) sockets[i & 1].write(f64(i));
      await Promise.race(done);
      check(got === n && sum === sumOf(n), 'raw socket sum');
    },
    async chain(n) {
      const s = sockets[0];
      const done = answers(s, (x) => {
        if (x < n) {
          s.write(f64(x));
          return false;
        }
        check(x === n, 'raw socket chain end');
        return true;
      });
      s.write(f64(0));
      await done;
    },
  };
}

const dtask = await dtaskRunner();
const children = await rawChildren();
const runners = {
  dtask,
  'raw IPC': ipcRunner(children, 0),
  [`raw IPC, batches of ${int(BATCH)}`]: ipcRunner(children, BATCH),
  'raw socket': socketRunner(children),
};
const samples = {};
for (const [name] of Object.entries(runners)) samples[name] = { trivial: [], chain: [] };
try {
  for (const [workload, size] of [
    ['trivial', N],
    ['chain', CHAIN],
  ]) {
    for (let r = 0; r < WARMUP + rounds; r++) {
      for (const [name, runner] of Object.entries(runners)) {
        if (workload === 'chain' && name.includes('batches')) continue; // a chain cannot batch
        globalThis.gc?.();
        const t0 = performance.now();
        await runner[workload](size);
        const ms = performance.now() - t0;
        if (r >= WARMUP) samples[name][workload].push(ms);
      }
    }
  }
} finally {
  await dtask.close();
  for (const { child, socket } of children) {
    socket.destroy();
    child.disconnect();
  }
}

const trivialRate = (name) => N / (median(samples[name].trivial) / 1000);
const chainUs = (name) => (median(samples[name].chain) * 1000) / CHAIN;
const spread = (xs, per) => `${fixed(per(Math.min(...xs)), 1)}-${fixed(per(Math.max(...xs)), 1)}`;
const rows = [];
for (const name of Object.keys(runners)) {
  const t = samples[name].trivial;
  const c = samples[name].chain;
  rows.push([
    name,
    `${int(trivialRate(name))} /s`,
    name === 'dtask' ? '' : `${fixed(trivialRate('dtask') / trivialRate(name), 2)}×`,
    c.length ? `${fixed(chainUs(name), 1)} µs` : '',
    c.length && name !== 'dtask' ? `${fixed(chainUs(name) / chainUs('dtask'), 2)}×` : '',
    `${spread(t, (ms) => ms)} ms / ${c.length ? spread(c, (ms) => (ms * 1000) / CHAIN) : '-'} µs`,
  ]);
}
console.log(
  `# dtask cluster(2 processes) vs raw child_process IPC and a raw loopback socket, Node ${process.version}, ${os.cpus().length} cores, median of ${rounds} (${int(N)} trivial tasks, chain of ${int(CHAIN)})`,
);
console.log(
  table(
    [
      'runner',
      'trivial tasks',
      'dtask ÷ runner',
      'chain per task',
      'runner ÷ dtask',
      'spread (trivial round / chain per task)',
    ],
    rows,
  ),
);
const results = new Results('processes', { sizes: { n: N, chain: CHAIN, batch: BATCH }, rounds });
for (const name of Object.keys(runners)) {
  results.note('trivial', name, median(samples[name].trivial));
  if (samples[name].chain.length) results.note('chain', name, median(samples[name].chain));
}
results.write();

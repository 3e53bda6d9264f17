// One measurement of the threads benchmark, run in a fresh process by threads.mjs:
//   node --expose-gc bench/threads-cases.mjs <case> '<params json>'
// Cases: trivial, chain, tree, cpu (see README.md), and calibrate (iterations of the spin
// task that take about params.ms milliseconds). params: { runner, threads, n, rounds, warmup,
// iterations? }. Prints one JSON line with the result. Exit code 3: the runner is unavailable
// (for dtask: @dtask/threads is not built); exit code 4: a round did not finish within
// params.roundTimeoutMs (a lost task). The reason goes to stderr.
import { once } from 'node:events';
import process from 'node:process';
import { Worker } from 'node:worker_threads';
import { add, inc, one, spin } from './fixtures/tasks.mjs';

const UNAVAILABLE = 3;
const HUNG = 4;
const poolWorker = new URL('./fixtures/pool-worker.mjs', import.meta.url);
const rawWorker = new URL('./fixtures/raw-worker.mjs', import.meta.url);

if (typeof globalThis.gc !== 'function') {
  console.error('Run with --expose-gc (threads.mjs does this for you)');
  process.exit(2);
}

const now = () => performance.now();
const tick = () => new Promise((resolve) => setImmediate(resolve));
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms).unref());

function check(ok, what) {
  if (!ok) throw new Error(`verification failed: ${what}`);
}

/** Sum of inc(i) for i in [0, n): what the trivial workload must add up to. */
const trivialSum = (n) => (n * (n + 1)) / 2;

/** Sum and count of results, checked against the trivial workload's. */
function checkTrivial(values, n) {
  let sum = 0;
  for (let i = 0; i < values.length; i++) sum += values[i];
  check(values.length === n && sum === trivialSum(n), `${n} results adding up`);
}

// ---------------------------------------------------------------------------- runners

/**
 * Each runner opens its threads (untimed), offers the workloads it takes part in (each an async
 * function running one round and checking its result), and closes. A workload it lacks is not
 * measured for it.
 */
const runners = {
  /** dtask: `configure({ plugins: [threads({ count })] })`, tasks shipped as source. */
  async dtask({ threads: count }) {
    let core;
    let plugin;
    try {
      core = await import('@dtask/core');
      plugin = await import('@dtask/threads');
    } catch (error) {
      if (error.code !== 'ERR_MODULE_NOT_FOUND') throw error;
      unavailable(`cannot load @dtask/threads (${error.message}): package not built`);
    }
    if (typeof plugin.threads !== 'function') {
      unavailable('@dtask/threads has no threads export: package not built (stale dist)');
    }
    const { configure, spawn, fetchAll, shutdown } = core;
    if (typeof fetchAll !== 'function') {
      unavailable('@dtask/core has no fetchAll export: package not built (stale dist)');
    }
    await configure({ plugins: [plugin.threads({ count })] }).ready();
    return {
      /** All spawned, then gathered with `fetchAll` (Dask's `gather`, Ray's `ray.get(refs)`). */
      async trivial(n) {
        const handles = new Array(n);
        for (let i = 0; i < n; i++) handles[i] = spawn(inc, i);
        checkTrivial(await fetchAll(handles), n);
      },
      async chain(n) {
        let t = spawn(inc, 0);
        for (let i = 1; i < n; i++) t = spawn(inc, t);
        check((await t) === n, 'chain end value');
      },
      async tree(leaves) {
        let level = new Array(leaves);
        for (let i = 0; i < leaves; i++) level[i] = spawn(one);
        while (level.length > 1) {
          const next = new Array(level.length >> 1);
          for (let i = 0; i < next.length; i++)
            next[i] = spawn(add, level[2 * i], level[2 * i + 1]);
          level = next;
        }
        check((await level[0]) === leaves, 'tree root value');
      },
      async cpu(n, iterations, expected) {
        const handles = new Array(n);
        for (let i = 0; i < n; i++) handles[i] = spawn(spin, iterations);
        const values = await Promise.all(handles);
        check(values.length === n && values.every((v) => v === expected), 'spin results');
      },
      close: shutdown,
    };
  },

  /** dtask with its trivial tasks gathered by `Promise.all`, as a promise pool's are. */
  async 'dtask-promise-all'(params) {
    const workloads = await runners.dtask(params);
    const { spawn } = await import('@dtask/core');
    return {
      async trivial(n) {
        const handles = new Array(n);
        for (let i = 0; i < n; i++) handles[i] = spawn(inc, i);
        checkTrivial(await Promise.all(handles), n);
      },
      close: workloads.close,
    };
  },

  /** Piscina 5, `minThreads = maxThreads = threads`, other options at their defaults. */
  async piscina({ threads }) {
    const { Piscina } = await import('piscina');
    const pool = new Piscina({
      filename: poolWorker.href,
      minThreads: threads,
      maxThreads: threads,
    });
    return poolWorkloads(pool);
  },

  /** tinypool 2, `minThreads = maxThreads = threads`, other options at their defaults. */
  async tinypool({ threads }) {
    const { Tinypool } = await import('tinypool');
    const pool = new Tinypool({
      filename: poolWorker.href,
      minThreads: threads,
      maxThreads: threads,
    });
    return poolWorkloads(pool);
  },

  /**
   * Raw worker_threads: `threads` workers, one `postMessage` per task, round-robin; replies are
   * counted and summed (no promise per task). The chain makes one round trip per task to the
   * first worker; the CPU-bound tasks are all sent at once, round-robin.
   */
  raw({ threads }) {
    return rawWorkloads(threads, 0);
  },

  /** The same, with tasks sent in batches of 1,000 per message (one reply per batch). */
  'raw-batched'({ threads }) {
    return rawWorkloads(threads, 1000);
  },

  /** The CPU-bound tasks as a plain loop in the calling thread: the serial reference. */
  serial() {
    return {
      async cpu(n, iterations, expected) {
        for (let i = 0; i < n; i++) check(spin(iterations) === expected, 'spin result');
      },
      async close() {},
    };
  },
};

function unavailable(reason) {
  console.error(reason);
  process.exit(UNAVAILABLE);
}

/** Piscina and tinypool share `run(task, { name })` and `destroy()`. */
function poolWorkloads(pool) {
  return {
    async trivial(n) {
      const results = new Array(n);
      for (let i = 0; i < n; i++) results[i] = pool.run(i);
      checkTrivial(await Promise.all(results), n);
    },
    /** Each task awaited before the next is submitted. */
    async chain(n) {
      let x = 0;
      for (let i = 0; i < n; i++) x = await pool.run(x);
      check(x === n, 'chain end value');
    },
    /** Level by level: all leaves, then each level's pairs once the level below is done. */
    async tree(leaves) {
      const first = new Array(leaves);
      for (let i = 0; i < leaves; i++) first[i] = pool.run(0, { name: 'one' });
      let level = await Promise.all(first);
      while (level.length > 1) {
        const next = new Array(level.length >> 1);
        for (let i = 0; i < next.length; i++) {
          next[i] = pool.run([level[2 * i], level[2 * i + 1]], { name: 'addPair' });
        }
        level = await Promise.all(next);
      }
      check(level[0] === leaves, 'tree root value');
    },
    async cpu(n, iterations, expected) {
      const results = new Array(n);
      for (let i = 0; i < n; i++) results[i] = pool.run(iterations, { name: 'spin' });
      const values = await Promise.all(results);
      check(values.length === n && values.every((v) => v === expected), 'spin results');
    },
    close: () => pool.destroy(),
  };
}

async function rawWorkloads(count, batch) {
  const workers = [];
  for (let i = 0; i < count; i++) workers.push(new Worker(rawWorker));
  // What a reply does depends on the workload; set before each round.
  let onReply = () => {};
  for (const w of workers) w.on('message', (m) => onReply(m));
  // Ready: every worker has answered one message.
  await Promise.all(
    workers.map(async (w) => {
      const reply = once(w, 'message');
      w.postMessage(0);
      await reply;
    }),
  );
  return {
    trivial(n) {
      return new Promise((resolve, reject) => {
        let received = 0;
        let sum = 0;
        onReply = (m) => {
          if (typeof m === 'number') {
            sum += m;
            received++;
          } else {
            for (let i = 0; i < m.length; i++) sum += m[i];
            received += m.length;
          }
          if (received === n) {
            if (sum === trivialSum(n)) resolve();
            else reject(new Error('verification failed: raw results adding up'));
          }
        };
        if (batch === 0) {
          for (let i = 0; i < n; i++) workers[i % count].postMessage(i);
        } else {
          for (let b = 0, k = 0; b < n; b += batch, k++) {
            const size = Math.min(batch, n - b);
            const tasks = new Array(size);
            for (let i = 0; i < size; i++) tasks[i] = b + i;
            workers[k % count].postMessage(tasks);
          }
        }
      });
    },
    ...(batch === 0 && {
      /** All tasks sent at once, round-robin: each worker's queue stays full. */
      cpu(n, iterations, expected) {
        return new Promise((resolve, reject) => {
          let received = 0;
          let wrong = 0;
          onReply = (m) => {
            if (m !== expected) wrong++;
            if (++received === n) {
              if (wrong === 0) resolve();
              else reject(new Error('verification failed: spin results'));
            }
          };
          for (let i = 0; i < n; i++) workers[i % count].postMessage({ spin: iterations });
        });
      },
      async chain(n) {
        let resolveReply;
        onReply = (m) => resolveReply(m);
        let x = 0;
        for (let i = 0; i < n; i++) {
          const reply = new Promise((resolve) => {
            resolveReply = resolve;
          });
          workers[0].postMessage(x);
          x = await reply;
        }
        check(x === n, 'chain end value');
      },
    }),
    async close() {
      await Promise.all(workers.map((w) => w.terminate()));
    },
  };
}

// ---------------------------------------------------------------------------- rounds

/** Work items per round of each workload (for tasks/s and µs/task). */
const TASKS = {
  trivial: (p) => p.n,
  chain: (p) => p.n,
  tree: (p) => 2 * p.n - 1,
  cpu: (p) => p.n,
};

/**
 * Runs `warmup` unmeasured rounds, then `rounds` measured ones, with a full GC (untimed) before
 * each, so that one round's garbage is not collected on the next one's clock.
 */
async function measure(name, params) {
  const open = runners[params.runner];
  check(open !== undefined, `known runner ${params.runner}`);
  const t0 = now();
  const runner = await open(params);
  const openMs = now() - t0;
  const workload = runner[name];
  check(workload !== undefined, `runner ${params.runner} runs workload ${name}`);
  const expected = name === 'cpu' ? spin(params.iterations) : undefined;
  const samples = [];
  for (let r = 0; r < params.warmup + params.rounds; r++) {
    globalThis.gc();
    globalThis.gc();
    await tick();
    const start = now();
    const watchdog = watch(params, r);
    await workload(params.n, params.iterations, expected);
    const ms = now() - start;
    clearTimeout(watchdog);
    if (r >= params.warmup) samples.push(ms);
  }
  // Closing is not measured, but one that hangs is reported.
  const c0 = now();
  const closed = await Promise.race([runner.close().then(() => true), sleep(10_000)]);
  return { tasks: TASKS[name](params), samplesMs: samples, openMs, closeMs: now() - c0, closed };
}

/**
 * Iterations of `spin` that take about `ms` in this thread, once warm. The fastest of 15
 * samples, since a busy machine can only slow a sample down; `measuredMs` is the same for the
 * calibrated count.
 */
function calibrate({ ms }) {
  const fastest = (iterations) => {
    let best = Number.POSITIVE_INFINITY;
    for (let i = 0; i < 15; i++) {
      const t0 = now();
      for (let k = 0; k < 5; k++) spin(iterations);
      best = Math.min(best, (now() - t0) / 5);
    }
    return best;
  };
  const base = 200_000;
  for (let i = 0; i < 200; i++) spin(base);
  const iterations = Math.round((base * ms) / fastest(base));
  return { iterations, measuredMs: fastest(iterations) };
}

/**
 * Ends the process with exit code HUNG unless the returned timer is cleared within
 * `params.roundTimeoutMs` (round `r` lost a task), so that a hang costs seconds, not the run.
 */
function watch({ roundTimeoutMs = 60_000 }, r) {
  return setTimeout(() => {
    console.error(`round ${r} did not finish within ${roundTimeoutMs / 1000} s`);
    process.exit(HUNG);
  }, roundTimeoutMs);
}

// ---------------------------------------------------------------------------- main

const [name, json] = process.argv.slice(2);
const params = JSON.parse(json ?? '{}');
let result;
if (name === 'calibrate') {
  result = calibrate(params);
} else if (name in TASKS) {
  result = await measure(name, params);
} else {
  console.error(`unknown case '${name}': trivial, chain, tree, cpu or calibrate`);
  process.exit(2);
}
// CPU time of this process, all its threads, so that the driver can tell what others used.
const { user, system } = process.cpuUsage();
result.cpuMs = (user + system) / 1000;
process.stdout.write(`${JSON.stringify({ case: name, params, ...result })}\n`);
// An open pool or a runtime that did not close must not keep this process (and the run) alive.
process.exit(0);

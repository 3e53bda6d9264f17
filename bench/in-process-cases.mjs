// One measurement of the in-process benchmark, run in a fresh process by in-process.mjs:
//   node --expose-gc bench/in-process-cases.mjs <case> '<params json>'
// Prints one JSON line with the result. Cases: throughput, chain, memory, allocation
// (see README.md).
import process from 'node:process';

/** @type {typeof import('@dtask/core')} */
let core;
try {
  core = await import('@dtask/core');
} catch (error) {
  console.error(
    `Cannot load @dtask/core (${error.message}). Build it first: bash scripts/setup.sh`,
  );
  process.exit(2);
}
if (typeof core.spawn !== 'function') {
  console.error('@dtask/core has no spawn export: its dist is stale. Run bash scripts/setup.sh');
  process.exit(2);
}
const { spawn, fetchAll } = core;

if (typeof globalThis.gc !== 'function') {
  console.error('Run with --expose-gc (in-process.mjs does this for you)');
  process.exit(2);
}

const now = () => performance.now();
const tick = () => new Promise((resolve) => setImmediate(resolve));

/** Full collection, twice (the second picks up what finalizers released), then a turn of I/O. */
async function settleHeap() {
  globalThis.gc();
  globalThis.gc();
  await tick();
}

// The trivial task body shared by every peer. It counts calls so that each round can check
// that every task really ran; the count also keeps the JIT from removing the call.
let calls = 0;
const trivial = (i) => {
  calls++;
  return i;
};
const inc = (x) => x + 1;
/** Tasks per batch in the batched runners (n must be a multiple). */
const BATCH = 1000;

function check(ok, what) {
  if (!ok) throw new Error(`verification failed: ${what}`);
}

// ---------------------------------------------------------------------------- (a), (d)

/**
 * One round of `n` independent trivial tasks. Unbatched runners spawn all `n` first (the loop
 * is synchronous, so nothing runs until it ends), then wait; `spawnMs` is the first part.
 * Batched and synchronous runners report the whole round as `spawnMs`.
 */
const trivialRunners = {
  /**
   * dtask, waiting on the last task: the in-process scheduler runs ready tasks in FIFO order,
   * so the last one settles after all the others (the call count checks it).
   */
  async dtask(n) {
    const t0 = now();
    let last;
    for (let i = 0; i < n; i++) last = spawn(trivial, i);
    const t1 = now();
    check((await last) === n - 1, 'last task value');
    return [t0, t1, now()];
  },
  /** dtask, keeping every handle and awaiting them all (`await Promise.all(handles)`). */
  async 'dtask-await-all'(n) {
    const handles = new Array(n);
    const t0 = now();
    for (let i = 0; i < n; i++) handles[i] = spawn(trivial, i);
    const t1 = now();
    const values = await Promise.all(handles);
    const t2 = now();
    check(values.length === n && values[n - 1] === n - 1, 'awaited values');
    return [t0, t1, t2];
  },
  /** dtask, keeping every handle and gathering them with `fetchAll(handles)`. */
  async 'dtask-fetch-all'(n) {
    const handles = new Array(n);
    const t0 = now();
    for (let i = 0; i < n; i++) handles[i] = spawn(trivial, i);
    const t1 = now();
    const values = await fetchAll(handles);
    const t2 = now();
    check(values.length === n && values[n - 1] === n - 1, 'gathered values');
    return [t0, t1, t2];
  },
  /** Plain promises, one microtask per task: `Promise.resolve().then(() => f(i))`. */
  async promise(n) {
    const t0 = now();
    let last;
    for (let i = 0; i < n; i++) last = Promise.resolve().then(() => trivial(i));
    const t1 = now();
    check((await last) === n - 1, 'last promise value');
    return [t0, t1, now()];
  },
  /** Plain promises, all kept and awaited with `Promise.all` (peer of dtask-await-all). */
  async 'promise-await-all'(n) {
    const promises = new Array(n);
    const t0 = now();
    for (let i = 0; i < n; i++) promises[i] = Promise.resolve().then(() => trivial(i));
    const t1 = now();
    const values = await Promise.all(promises);
    const t2 = now();
    check(values.length === n && values[n - 1] === n - 1, 'awaited values');
    return [t0, t1, t2];
  },
  /**
   * dtask in batches of BATCH: spawn a batch, await its last task, repeat. Few tasks are alive
   * at once, so this shows the scheduler's own cost with little garbage-collector work.
   */
  async 'dtask-batched'(n) {
    const t0 = now();
    for (let b = 0; b < n; b += BATCH) {
      let last;
      for (let i = b; i < b + BATCH; i++) last = spawn(trivial, i);
      check((await last) === b + BATCH - 1, 'last task value of a batch');
    }
    const t1 = now();
    return [t0, t1, t1];
  },
  /** Plain promises in batches of BATCH (peer of dtask-batched). */
  async 'promise-batched'(n) {
    const t0 = now();
    for (let b = 0; b < n; b += BATCH) {
      let last;
      for (let i = b; i < b + BATCH; i++) last = Promise.resolve().then(() => trivial(i));
      check((await last) === b + BATCH - 1, 'last promise value of a batch');
    }
    const t1 = now();
    return [t0, t1, t1];
  },
  /** Plain synchronous calls. */
  async sync(n) {
    let sum = 0;
    const t0 = now();
    for (let i = 0; i < n; i++) sum += trivial(i);
    const t1 = now();
    check(sum === (n * (n - 1)) / 2, 'sum');
    return [t0, t1, t1];
  },
};

/** One round of a chain of `n` dependent tasks, each adding one to its input. */
const chainRunners = {
  async dtask(n) {
    const t0 = now();
    let t = spawn(inc, 0);
    for (let i = 1; i < n; i++) t = spawn(inc, t);
    const t1 = now();
    check((await t) === n, 'chain end value');
    return [t0, t1, now()];
  },
  async promise(n) {
    const t0 = now();
    let p = Promise.resolve(0);
    for (let i = 0; i < n; i++) p = p.then(inc);
    const t1 = now();
    check((await p) === n, 'chain end value');
    return [t0, t1, now()];
  },
  async sync(n) {
    const t0 = now();
    let x = 0;
    for (let i = 0; i < n; i++) x = inc(x);
    const t1 = now();
    check(x === n, 'chain end value');
    return [t0, t1, t1];
  },
};

/**
 * Runs `warmup` unmeasured rounds, then `rounds` measured ones, with a full GC before each
 * (untimed), so that one round's garbage is not collected on the next round's clock.
 */
async function rounds(runner, { n, rounds, warmup }, expectCalls) {
  const samples = [];
  for (let r = 0; r < warmup + rounds; r++) {
    await settleHeap();
    calls = 0;
    const [t0, t1, t2] = await runner(n);
    check(calls === expectCalls, `${expectCalls} calls of the task body, got ${calls}`);
    if (r >= warmup) samples.push({ totalMs: t2 - t0, spawnMs: t1 - t0, drainMs: t2 - t1 });
  }
  return samples;
}

// ---------------------------------------------------------------------------- (c)

/**
 * Heap per pending task: `n` tasks wait on one gate task that is running (its promise has not
 * resolved). `keep` also stores every handle in a preallocated array, as a caller that awaits
 * them later would (that array, 8 bytes per task, is counted). Then the gate opens and every
 * task must finish.
 */
async function memory({ n, peer, keep }) {
  let open;
  const gateValue = new Promise((resolve) => {
    open = resolve;
  });
  let done = 0;
  let allDone;
  const finished = new Promise((resolve) => {
    allDone = resolve;
  });
  const waiter = (_gate, i) => {
    if (++done === n) allDone();
    return i;
  };
  let gate;
  if (peer === 'dtask') {
    gate = spawn(() => gateValue);
    await tick(); // the gate task is now running, waiting on its promise
    check(!gate.isReady(), 'gate still open');
  } else {
    gate = gateValue;
  }
  await settleHeap();
  const before = process.memoryUsage().heapUsed;
  const handles = keep ? new Array(n) : undefined;
  if (peer === 'dtask') {
    for (let i = 0; i < n; i++) {
      const t = spawn(waiter, gate, i);
      if (handles) handles[i] = t;
    }
  } else {
    for (let i = 0; i < n; i++) {
      const p = gate.then((g) => waiter(g, i));
      if (handles) handles[i] = p;
    }
  }
  await settleHeap();
  const after = process.memoryUsage().heapUsed;
  check(done === 0, 'no task ran before the gate opened');
  const t0 = now();
  open('gate');
  await finished;
  const drainMs = now() - t0;
  check(done === n, 'every task ran');
  if (handles && peer === 'dtask') {
    check(
      handles.every((t) => t.isReady()),
      'every kept handle is ready',
    );
    check((await handles[n - 1]) === n - 1, 'last value');
  }
  return { bytesPerTask: (after - before) / n, heapBefore: before, heapAfter: after, drainMs };
}

// ---------------------------------------------------------------------------- (e)

/**
 * Bytes allocated per task, garbage included, by V8's sampling heap profiler (one sample per
 * 256 bytes on average, keeping objects that GC collected), attributed to the allocating
 * function (after inlining, so a site may name its caller). Two unmeasured rounds first.
 */
async function allocation({ n, workload }) {
  const runner = workload === 'chain' ? chainRunners.dtask : trivialRunners.dtask;
  await runner(n);
  await runner(n);
  await settleHeap();
  const { Session } = await import('node:inspector/promises');
  const session = new Session();
  session.connect();
  await session.post('HeapProfiler.startSampling', {
    samplingInterval: 256,
    includeObjectsCollectedByMajorGC: true,
    includeObjectsCollectedByMinorGC: true,
  });
  await runner(n);
  const { profile } = await session.post('HeapProfiler.stopSampling');
  session.disconnect();
  const bySite = new Map();
  let total = 0;
  const walk = (node) => {
    const cf = node.callFrame;
    const file = cf.url.split('/').slice(-2).join('/');
    const site = `${cf.functionName || '(anonymous)'} ${file}:${cf.lineNumber + 1}`;
    total += node.selfSize;
    if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const sites = [...bySite]
    .sort((a, b) => b[1] - a[1])
    .slice(0, 6)
    .map(([site, bytes]) => ({ site, bytesPerTask: bytes / n }));
  return { bytesPerTask: total / n, sites };
}

// ---------------------------------------------------------------------------- main

const [name, json] = process.argv.slice(2);
const params = JSON.parse(json ?? '{}');
let result;
if (name === 'throughput') {
  const runner = trivialRunners[params.peer];
  check(runner !== undefined, `known peer ${params.peer}`);
  // One dtask task first: running it enables dtask's AsyncLocalStorage (in Node 20 a
  // promise hook on every promise of the process), so a peer then pays that too.
  if (params.afterDtask) check((await spawn(trivial, 0)) === 0, 'first task');
  result = { samples: await rounds(runner, params, params.n) };
} else if (name === 'chain') {
  const runner = chainRunners[params.peer];
  check(runner !== undefined, `known peer ${params.peer}`);
  result = { samples: await rounds(runner, params, 0) };
} else if (name === 'memory') {
  result = await memory(params);
} else if (name === 'allocation') {
  result = await allocation(params);
} else {
  console.error(`unknown case '${name}': throughput, chain, memory or allocation`);
  process.exit(2);
}
process.stdout.write(`${JSON.stringify({ case: name, params, ...result })}\n`);

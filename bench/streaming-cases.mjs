// One measurement of bench/streaming.mjs, run in a fresh Node process:
//   node bench/streaming-cases.mjs <case> <count> [warmup]
// Runs the case `warmup` times untimed (default 0), then once timed, each run set up afresh
// (a new context, new workers: started and ready before the clock starts), and prints one JSON
// line { case, count, sum, ms } for the timed run. Every case moves the numbers 0..count-1
// through three stages (make, double, add one) and sums them where they end, so each must print
// the same sum.

import { once } from 'node:events';
import { Readable, Transform, Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { MessageChannel, Worker } from 'node:worker_threads';

const [which, countText, warmupText] = process.argv.slice(2);
const count = Number(countText);
const warmup = Number(warmupText ?? 0);

async function* numbers(n) {
  for (let i = 0; i < n; i++) yield i;
}

async function dtaskStream(onThreads) {
  const core = await import('@dtask/core');
  const plugins = [];
  if (onThreads) {
    const { threads } = await import('@dtask/threads');
    plugins.push(threads({ count: 2 }));
  }
  const ctx = new core.Context({ plugins });
  await ctx.ready();
  const at = (thread) => (onThreads ? { scope: core.scope({ worker: 1, thread }) } : {});
  const t0 = performance.now();
  const last = core.spawnStreaming(() => {
    const source = ctx.spawn({ ...at(2), streamMaxEvals: count }, async function* () {
      for (let i = 0; ; i++) yield i;
    });
    const doubled = ctx.spawn(at(3), (v) => v * 2, source);
    return ctx.spawn(at(3), (v) => v + 1, doubled);
  });
  let sum = 0;
  for await (const v of core.streamValues(last)) sum += v;
  const ms = performance.now() - t0;
  await ctx.close();
  return { sum, ms };
}

/** The same DAG ending in a streaming sink task that sums (the counterpart of a Writable). */
async function dtaskSinkTask() {
  const core = await import('@dtask/core');
  const ctx = new core.Context({ plugins: [] });
  await ctx.ready();
  let sum = 0;
  const t0 = performance.now();
  const sink = core.spawnStreaming(() => {
    const source = ctx.spawn({ streamMaxEvals: count }, async function* () {
      for (let i = 0; ; i++) yield i;
    });
    const doubled = ctx.spawn((v) => v * 2, source);
    const plusOne = ctx.spawn((v) => v + 1, doubled);
    return ctx.spawn((v) => {
      sum += v;
    }, plusOne);
  });
  await sink;
  const ms = performance.now() - t0;
  await ctx.close();
  return { sum, ms };
}

/** The Node pipeline read with `for await` (the counterpart of `streamValues`). */
async function nodePipelineForAwait() {
  const t0 = performance.now();
  let sum = 0;
  const map = (f) =>
    new Transform({
      objectMode: true,
      transform(v, _e, done) {
        done(null, f(v));
      },
    });
  const last = map((v) => v + 1);
  const done = pipeline(
    Readable.from(numbers(count)),
    map((v) => v * 2),
    last,
  );
  for await (const v of last) sum += v;
  await done;
  return { sum, ms: performance.now() - t0 };
}

async function nodePipeline() {
  const t0 = performance.now();
  let sum = 0;
  const map = (f) =>
    new Transform({
      objectMode: true,
      transform(v, _e, done) {
        done(null, f(v));
      },
    });
  await pipeline(
    Readable.from(numbers(count)),
    map((v) => v * 2),
    map((v) => v + 1),
    new Writable({
      objectMode: true,
      write(v, _e, done) {
        sum += v;
        done();
      },
    }),
  );
  return { sum, ms: performance.now() - t0 };
}

/** Hand-written worker_threads: a maker thread, a mapping thread, the sum here. */
async function rawThreads(batch) {
  // The maker starts on a message from here, once both threads are running.
  const maker = `
    const { workerData: { port, count, batch }, parentPort } = require('node:worker_threads');
    parentPort.once('message', () => {
      if (batch === 1) for (let i = 0; i < count; i++) port.postMessage(i);
      else for (let i = 0; i < count; i += batch) {
        const a = []; for (let j = i; j < Math.min(i + batch, count); j++) a.push(j);
        port.postMessage(a);
      }
      parentPort.close();
    });`;
  const mapper = `
    const { workerData: { from, batch }, parentPort } = require('node:worker_threads');
    from.on('message', (m) => {
      if (batch === 1) parentPort.postMessage(m * 2 + 1);
      else parentPort.postMessage(m.map((v) => v * 2 + 1));
    });`;
  const { port1, port2 } = new MessageChannel();
  const b = new Worker(mapper, {
    eval: true,
    workerData: { from: port2, batch },
    transferList: [port2],
  });
  const a = new Worker(maker, {
    eval: true,
    workerData: { port: port1, count, batch },
    transferList: [port1],
  });
  await Promise.all([once(a, 'online'), once(b, 'online')]);
  const t0 = performance.now();
  a.postMessage('go');
  let sum = 0;
  let seen = 0;
  await new Promise((resolve) => {
    b.on('message', (m) => {
      if (batch === 1) {
        sum += m;
        seen++;
      } else {
        for (const v of m) sum += v;
        seen += m.length;
      }
      if (seen === count) resolve();
    });
  });
  const ms = performance.now() - t0;
  await Promise.all([a.terminate(), b.terminate()]);
  return { sum, ms };
}

const cases = {
  'dtask-in-process': () => dtaskStream(false),
  'node-pipeline': nodePipeline,
  'dtask-sink-task': dtaskSinkTask,
  'node-pipeline-for-await': nodePipelineForAwait,
  'dtask-2-threads': () => dtaskStream(true),
  'raw-per-value': () => rawThreads(1),
  'raw-batch-256': () => rawThreads(256),
};
const run = cases[which];
if (!run) {
  console.error(`unknown case ${which}; known: ${Object.keys(cases).join(', ')}`);
  process.exit(2);
}
for (let i = 0; i < warmup; i++) await run();
const { sum, ms } = await run();
console.log(JSON.stringify({ case: which, count, sum, ms }));

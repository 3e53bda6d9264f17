// Whether an AsyncLocalStorage in a worker thread makes each message it receives cost more
// (Node 20's async hooks): a worker echoes numbered messages from the main thread, replying at
// once, from `queueMicrotask` (which Node wraps in an async scope: `runInAsyncScope`) or from a
// resolved promise's `then`, with and without an AsyncLocalStorage entered in that worker (which
// turns the hooks on). Prints the worker thread's CPU per message (/proc/thread-self/schedstat,
// Linux only), median and range over rounds that alternate the six workers.
//   node bench/message-async-context.mjs [--rounds=5] [--warmup=1]
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Worker } from 'node:worker_threads';
import { median, parseFlags, table } from './shared.mjs';

const { rounds, warmup } = parseFlags(process.argv.slice(2), 5, 1);
const N = 100_000;
const IN_FLIGHT = 16;

const source = (defer, als) => `
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
if (${als}) new (require('node:async_hooks').AsyncLocalStorage)().enterWith({ on: true });
const cpu = () => Number(readFileSync('/proc/thread-self/schedstat', 'utf8').split(' ')[0]);
const resolved = Promise.resolve();
let last;
const reply = () => parentPort.postMessage(last);
parentPort.on('message', (m) => {
  if (m === 'cpu') return parentPort.postMessage(cpu());
  last = m;
  ${defer === 'queueMicrotask' ? 'queueMicrotask(reply)' : defer === 'then' ? 'resolved.then(reply)' : 'reply()'};
});`;

const variants = [];
for (const defer of ['at once', 'queueMicrotask', 'then']) {
  for (const als of [false, true]) {
    const worker = new Worker(source(defer, als), { eval: true });
    variants.push({ defer, als, worker, perMessage: [] });
  }
}

function ask(worker, m) {
  return new Promise((resolve) => {
    worker.once('message', resolve);
    worker.postMessage(m);
  });
}

function echo(worker, n) {
  let sent = 0;
  let got = 0;
  return new Promise((resolve) => {
    worker.on('message', function onReply() {
      got++;
      if (sent < n) worker.postMessage(++sent);
      if (got === n) {
        worker.off('message', onReply);
        resolve();
      }
    });
    for (let i = 0; i < IN_FLIGHT; i++) worker.postMessage(++sent);
  });
}

for (let r = 0; r < warmup + rounds; r++) {
  const order = r % 2 === 0 ? variants : [...variants].reverse();
  for (const v of order) {
    const c0 = await ask(v.worker, 'cpu');
    await echo(v.worker, N);
    const c1 = await ask(v.worker, 'cpu');
    if (r >= warmup) v.perMessage.push((c1 - c0) / 1000 / N);
  }
}
for (const v of variants) await v.worker.terminate();
const load = readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
console.log(`\nWorker CPU per message (µs), ${rounds} rounds after ${warmup}, load ${load}\n`);
console.log(
  table(
    ['reply', 'AsyncLocalStorage', 'median', 'range'],
    variants.map((v) => [
      v.defer,
      v.als ? 'entered' : 'none',
      median(v.perMessage).toFixed(2),
      `${Math.min(...v.perMessage).toFixed(2)}–${Math.max(...v.perMessage).toFixed(2)}`,
    ]),
  ),
);

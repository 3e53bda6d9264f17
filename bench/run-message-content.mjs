// What a region task's run message costs for what it carries, against the round trip itself:
// a worker thread answers each message with one number (as a completion report), and the main
// thread sends the next on each answer, one message in flight, so each trip pays one
// `postMessage` and one wake-up each way, as a Cholesky tile task's does. The messages are
// built as dtask's run record of a task with three 128×128 tiles of a 1024² matrix in a
// `SharedArrayBuffer` (`[RUN, id, fn, args, refs, IN_PLACE_RUN]`, each tile in its compact
// view form), with each tile's data:
//   sab    the matrix's `Float64Array` over the shared buffer (what dtask sends), which the
//          worker receives as a new `SharedArrayBuffer` and `Float64Array` per message;
//   id     a number naming the buffer, which the worker turns into a `Float64Array` over the
//          buffer it keeps in a table (a buffer id the worker holds, sent once);
//   raw    the hand-written raw scheduler's message instead: five numbers.
// Medians over alternated trials of the CPU each thread spends a trip (`/proc/self/task/*/
// schedstat`), so the machine's load moves each form alike. Linux only.
//   node bench/run-message-content.mjs [--rounds=20]
import { loadavg } from 'node:os';
import { Worker } from 'node:worker_threads';
import { threadCpu } from './fixtures/thread-cpu.mjs';
import { fixed, median, parseFlags, table } from './shared.mjs';

const { rounds } = parseFlags(undefined, 20);
const TRIPS = 4000;
const MARK = '\u0000dtask.view';
const N = 1024;
const data = new Float64Array(new SharedArrayBuffer(8 * N * N));

/** The worker: rebuilds `id` tiles from its table, answers each message with a number. */
const worker = new Worker(
  `
  const { parentPort } = require('node:worker_threads');
  parentPort.postMessage(require('node:fs').readlinkSync('/proc/thread-self').split('/').pop());
  const buffers = [];
  parentPort.on('message', (m) => {
    if (m.op === 'buffer') buffers[m.id] = m.buffer;
    else if (m.op === 'id') for (const v of m.batch[0][3]) v[1] = new Float64Array(buffers[v[1]]);
    parentPort.postMessage(1);
  });
  `,
  { eval: true },
);
/** The worker's thread id (its first message). */
const workerTid = await new Promise((resolve) => worker.once('message', resolve));

const tile = (form, i, j) => [
  MARK,
  form === 'sab' ? data : 0,
  i * 128 * N + j * 128,
  128,
  128,
  N,
  1,
];
const message = (form, id) =>
  form === 'raw'
    ? [2, id, 3, 5, 7]
    : {
        op: form,
        batch: [[1, id, 4, [tile(form, 3, 1), tile(form, 2, 1), tile(form, 3, 2)], undefined, 1]],
      };

/** CPU ns of the main thread and of the worker's. */
function cpu() {
  const t = threadCpu();
  return [t.get(String(process.pid)), t.get(workerTid)];
}

/** `TRIPS` round trips of `form`'s message: CPU µs a trip, main thread and worker. */
async function trial(form) {
  let sent = 0;
  const [m0, w0] = cpu();
  await new Promise((resolve) => {
    const next = () => {
      if (sent === TRIPS) {
        worker.off('message', next);
        resolve();
      } else worker.postMessage(message(form, sent++));
    };
    worker.on('message', next);
    next();
  });
  const [m1, w1] = cpu();
  return [(m1 - m0) / TRIPS / 1000, (w1 - w0) / TRIPS / 1000];
}

// The worker takes the buffer once, as a table per connection would.
worker.postMessage({ op: 'buffer', id: 0, buffer: data.buffer });
await new Promise((resolve) => worker.once('message', resolve));
const forms = ['sab', 'id', 'raw'];
const samples = new Map(forms.map((f) => [f, { main: [], worker: [] }]));
for (let r = 0; r < rounds + 2; r++) {
  for (const form of forms) {
    const [main, work] = await trial(form);
    if (r < 2) continue; // warm-up
    samples.get(form).main.push(main);
    samples.get(form).worker.push(work);
  }
}
await worker.terminate();
console.log(
  `\nA run message's content against its round trip (${TRIPS} trips a trial, ${rounds} alternated trials, load ${fixed(loadavg()[0])}); CPU µs a trip, medians\n`,
);
console.log(
  table(
    ['tiles travel as', 'main thread', 'worker thread'],
    forms.map((f) => [
      {
        sab: 'Float64Array over the SharedArrayBuffer',
        id: 'buffer id (worker table)',
        raw: 'raw: five numbers',
      }[f],
      fixed(median(samples.get(f).main)),
      fixed(median(samples.get(f).worker)),
    ]),
  ),
);

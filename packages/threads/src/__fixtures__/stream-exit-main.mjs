// Run as `node stream-exit-main.mjs` by threads-stream-exit.test.ts: a source and a step on worker
// thread 2 (joined by an edge on that thread), a sink on the main thread; once values flow, an
// ordinary task on thread 2 calls process.exit(7). The thread must end; every task of the
// streaming DAG must fail (one that ran there with WorkerLostError naming it) rather than start
// again on the thread that replaces it; the reader must end with the failure, an ordinary task
// must still run, and the program must exit 0 after shutdown(). Each line printed is checked.
import { configure, scope, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';
import { threads } from '@dtask/threads';

const plugin = threads({ count: 2 });
await configure({ plugins: [plugin] }).ready();
const onThread = (thread) => ({ scope: scope({ worker: 1, thread }) });
const first = plugin.threadWorkers().find((w) => w.proc.id === 'thread:1:2').worker;
let exitCode;
const ended = new Promise((resolve) =>
  first.once('exit', (code) => {
    exitCode = code;
    resolve();
  }),
);

const [source, double, sink] = spawnStreaming(() => {
  const source = spawn({ ...onThread(2), name: 'source' }, () => Math.random());
  const double = spawn({ ...onThread(2), name: 'double' }, (v) => v * 2, source);
  const sink = spawn({ ...onThread(1), name: 'sink' }, (v) => v, double);
  return [source, double, sink];
});

/** `promise`'s outcome, or `late` after `ms`; the timer is cleared either way (not left to hold node). */
async function within(promise, ms, late) {
  let timer;
  try {
    return await Promise.race([
      promise,
      new Promise((r) => (timer = setTimeout(() => r(late), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

let values = 0;
let afterExit = 0;
let exiter;
let readerError;
const started = Date.now();
try {
  for await (const _ of streamValues(sink)) {
    if (++values === 2000) {
      exiter = spawn({ ...onThread(2), name: 'exiter' }, () => process.exit(7)).then(
        () => 'resolved',
        (e) => e?.cause?.code ?? e?.code,
      );
    }
    // Values still coming long after the thread ended: the DAG runs on where it should have
    // failed (bounded, so the check fails with a line rather than a hang).
    if (exitCode !== undefined && ++afterExit > 1_000_000) break;
    if (Date.now() - started > 60_000) break;
  }
} catch (e) {
  readerError = e;
}
// The DAG may fail before the thread's 'exit' event has come.
await within(ended, 10_000);
console.log(`thread ended: ${exitCode}`);
console.log(
  afterExit > 1_000_000 ? 'values kept flowing after the thread ended' : 'values stopped',
);

const codeOf = (e) => e?.cause?.code ?? e?.code;
const codes = [];
for (const [name, t] of [
  ['source', source],
  ['double', double],
]) {
  const e = await within(
    t.then(
      () => ({ code: 'resolved' }),
      (e) => e,
    ),
    5000,
    { code: 'pending' },
  );
  const code = codeOf(e);
  codes.push(code);
  const named = new RegExp(`'${name}'`).test(e?.cause?.message ?? '');
  console.log(`${name} ${code === 'DTASK_WORKER_LOST' ? `lost, named ${named}` : code}`);
}
console.log(`a task lost: ${codes.includes('DTASK_WORKER_LOST')}`);
sink.cancel();
console.log(
  `sink ${codeOf(
    await sink.then(
      () => undefined,
      (e) => e,
    ),
  )}`,
);
console.log(`reader ${readerError?.code}`);
console.log(`exiter ${await exiter}`);
console.log(`after ${await spawn(onThread(3), () => 42)}`);
await shutdown();
console.log('done');

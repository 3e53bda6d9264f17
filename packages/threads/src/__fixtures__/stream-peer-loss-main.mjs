// Run as `node stream-peer-loss-main.mjs producer|consumer` by threads-stream-peer-edges.test.ts:
// a source on worker thread 2, a step on thread 3 reading it (values go thread to thread), a sink
// on the main thread; the source's thread (producer) or the step's (consumer) is terminated while
// values flow. Every task of the DAG must fail (one that ran there with WorkerLostError naming
// it), the reader must end with the failure, an ordinary task must still run, and the program
// must exit 0 after shutdown().
import { configure, scope, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';
import { threads } from '@dtask/threads';

const lose = process.argv[2] === 'consumer' ? 'thread:1:3' : 'thread:1:2';
const plugin = threads({ count: 2 });
await configure({ plugins: [plugin] }).ready();
const onThread = (thread) => ({ scope: scope({ worker: 1, thread }) });

const [source, double, sink] = spawnStreaming(() => {
  const source = spawn({ ...onThread(2), name: 'source' }, () => Math.random());
  const double = spawn({ ...onThread(3), name: 'double' }, (v) => v * 2, source);
  const sink = spawn({ ...onThread(1), name: 'sink' }, (v) => v, double);
  return [source, double, sink];
});

let values = 0;
let readerError;
try {
  for await (const _ of streamValues(sink)) {
    if (++values === 5000) {
      plugin
        .threadWorkers()
        .find((w) => w.proc.id === lose)
        .worker.terminate();
    }
  }
} catch (e) {
  readerError = e;
}
console.log(`values ${values >= 5000 ? 'enough' : `too few: ${values}`}`);

const codeOf = (e) => e?.cause?.code ?? e?.code;
const codes = [];
for (const [name, t] of [
  ['source', source],
  ['double', double],
]) {
  const e = await t.then(
    () => undefined,
    (e) => e,
  );
  const code = codeOf(e);
  codes.push(code);
  const named = new RegExp(`'${name}'`).test(e?.cause?.message ?? '');
  console.log(`${name} ${code === 'DTASK_WORKER_LOST' ? `lost, named ${named}` : code}`);
}
console.log(`a task lost: ${codes.includes('DTASK_WORKER_LOST')}`);
console.log(
  `sink ${codeOf(
    await sink.then(
      () => undefined,
      (e) => e,
    ),
  )}`,
);
console.log(`reader ${readerError?.code}`);
console.log(`after ${await spawn(onThread(lose === 'thread:1:2' ? 3 : 2), () => 42)}`);
await shutdown();
console.log('done');

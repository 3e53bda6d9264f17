// Run as `node stream-local-loss-main.mjs` by threads-stream-local-edges.test.ts: a source and a
// step on worker thread 2 (the step reads the source there, on a local edge), a sink on the main
// thread; thread 2 is terminated while values flow. Every task of the DAG must fail (one that ran there
// with WorkerLostError naming it), the reader must end with the failure, an ordinary task must
// still run, and the program must exit 0 after shutdown().
import { configure, scope, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';
import { threads } from '@dtask/threads';

const plugin = threads({ count: 2 });
await configure({ plugins: [plugin] }).ready();
const onThread = (thread) => ({ scope: scope({ worker: 1, thread }) });

const [source, double, sink] = spawnStreaming(() => {
  const source = spawn({ ...onThread(2), name: 'source' }, () => Math.random());
  const double = spawn({ ...onThread(2), name: 'double' }, (v) => v * 2, source);
  const sink = spawn({ ...onThread(1), name: 'sink' }, (v) => v, double);
  return [source, double, sink];
});

let values = 0;
let readerError;
try {
  for await (const _ of streamValues(sink)) {
    if (++values === 2000) {
      plugin
        .threadWorkers()
        .find((w) => w.proc.id === 'thread:1:2')
        .worker.terminate();
    }
  }
} catch (e) {
  readerError = e;
}
console.log(`values ${values >= 2000 ? 'enough' : `too few: ${values}`}`);

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
console.log(`after ${await spawn(onThread(3), () => 42)}`);
await shutdown();
console.log('done');

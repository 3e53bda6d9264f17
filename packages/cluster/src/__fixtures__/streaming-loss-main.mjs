// Run as `node streaming-loss-main.mjs` by cluster-streaming.test.ts: a streaming DAG (a source
// on the main thread, a step on worker process 2, a sink on the main thread) whose worker
// process is SIGKILLed while values flow. Every task of the DAG must fail (the one that ran
// there with WorkerLostError naming it), the reader must end with the failure, an ordinary task
// must still run, and the program must exit 0 after shutdown().
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';

const plugin = cluster({ workers: 2 });
await configure({ plugins: [plugin] }).ready();
const main = { scope: scope({ worker: 1, thread: 1 }) };

const [source, double, sink] = spawnStreaming(() => {
  const source = spawn({ ...main, name: 'source' }, () => Math.random());
  const double = spawn({ scope: scope({ worker: 2 }), name: 'double' }, (v) => v * 2, source);
  const sink = spawn({ ...main, name: 'sink' }, (v) => v, double);
  return [source, double, sink];
});

let values = 0;
let readerError;
try {
  for await (const _ of streamValues(sink)) {
    if (++values === 2000)
      plugin
        .processWorkers()
        .find((w) => w.worker === 2)
        .child.kill('SIGKILL');
  }
} catch (e) {
  readerError = e;
}
console.log(`values ${values >= 2000 ? values : `too few: ${values}`}`);

const codeOf = (e) => e?.cause?.code ?? e?.code;
for (const [name, t] of [
  ['source', source],
  ['double', double],
  ['sink', sink],
]) {
  const e = await t.then(
    () => undefined,
    (e) => e,
  );
  const extra =
    name === 'double' ? ` names 'double' ${/'double'/.test(e?.cause?.message) ? 'yes' : 'no'}` : '';
  console.log(`${name} ${codeOf(e)}${extra}`);
}
console.log(`reader ${readerError?.code}`);
console.log(`after ${await spawn({ scope: scope({ workers: [2, 3] }) }, () => 42)}`);
await shutdown();
console.log('done');

// Run as `node worker-held-main.mjs` by worker-held-data.test.ts: what a user writes. A large
// vector made on a worker process stays there; a region writes it from a worker thread of the
// main process (a copy goes there, the written copy comes back to the process), then a task on
// the process reads it in place. Prints where the writer ran and what the process holds; the
// sequential program gives [11, 21, ..., 3001] written on thread:1:2.
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn } from '@dtask/core';
import { InOut, Out, spawnDatadeps } from '@dtask/datadeps';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 1 }), cluster({ workers: 1 })] }).ready();
const onProcess = { scope: scope({ worker: 2 }) };
const onThread = { scope: scope({ worker: 1, thread: 2 }) };
const a = spawn(onProcess, (n) => new Float64Array(n), 300);
let ran;
await spawnDatadeps(() => {
  spawn(
    onThread,
    (x) => {
      for (let i = 0; i < x.length; i++) x[i] = i + 1;
    },
    Out(a),
  );
  ran = spawn(
    onThread,
    (x) => {
      for (let i = 0; i < x.length; i++) x[i] = x[i] * 10 + 1;
      return dtask.taskProcessor().id;
    },
    InOut(a),
  );
});
const held = await spawn(onProcess, (x) => [dtask.taskProcessor().id, x[0], x[1], x[299]], a);
console.log(JSON.stringify({ writer: await ran, held }));
await shutdown();

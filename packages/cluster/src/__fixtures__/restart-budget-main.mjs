// Run as `node restart-budget-main.mjs` by cluster-restart-budget.test.ts: a plain program on
// one local worker process. A task kills its worker process each time it runs (SIGKILL from
// inside), so it fails after 3 deaths; the replacement then serves, and the worker process is
// SIGKILLed from outside 4 times more, each time after its replacement served. Deaths caused
// by a task, and deaths of a worker that served, are no failed starts: the worker's number is
// never given up. Prints what it saw and each warning; ends with `shutdown()`.
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn } from '@dtask/core';

process.on('warning', (w) => console.log(`warning ${w.message}`));
const plugin = cluster({ workers: 1 });
await configure({ plugins: [plugin] }).ready();
const id = plugin.processWorkers()[0].worker;
const on = { scope: scope({ worker: id }) };
const pidThere = () => spawn(on, () => process.pid);

const killer = await spawn(on, () => process.kill(process.pid, 'SIGKILL')).then(
  () => 'ran',
  (e) => e.cause?.code ?? e.code,
);
console.log(`killer ${killer}`);
let pid = await pidThere();
console.log('served after the killer');
for (let round = 1; round <= 4; round++) {
  process.kill(pid, 'SIGKILL');
  const next = await pidThere().then(
    (p) => p,
    (e) => `failed ${e.cause?.message ?? e.message}`,
  );
  if (typeof next !== 'number' || next === pid) {
    console.log(`round ${round}: ${next}`);
    break;
  }
  pid = next;
  console.log(`replaced ${round}`);
}
await shutdown();
console.log('done');

// Run as `node lost-input-main.mjs` by cluster-program.test.ts: a plain program in which the
// worker process holding a task's input freezes (SIGSTOP) while the input is on its way to a
// task on the other worker, which cannot reach it directly (its peer socket is gone, as across
// a partition), so the scheduler brings the input itself. The holder is found dead by its
// heartbeats; the input is recomputed from lineage and the task runs: exact, exit 0.
import { rmSync } from 'node:fs';
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn } from '@dtask/core';

const plugin = cluster({ workers: 2, heartbeatMs: 100, heartbeatTimeoutMs: 1500 });
await configure({ plugins: [plugin] }).ready();
const onTwo = { scope: scope({ worker: 2 }) };
const onThree = { scope: scope({ worker: 3 }) };
const held = spawn(onTwo, (n) => Array.from({ length: n }, (_, i) => i), 1000);
await spawn(onTwo, (xs) => xs.length, held);
const two = plugin.processWorkers().find((w) => w.worker === 2);
// A worker serves only once its heartbeat thread has joined, so its heartbeats (not the 30 s
// start timeout) find it frozen from its first task on.
if (two.heartbeat === undefined) {
  console.error('worker 2 served a task before its heartbeat thread joined');
  process.exit(3);
}
rmSync(two.members.get(1).peerAddress.replace(/^unix:/, ''), { force: true });
two.child.kill('SIGSTOP');
const sum = await spawn(onThree, (xs) => xs.reduce((a, b) => a + b, 0), held);
console.log(`sum ${sum}`);
await shutdown();
console.log('done');

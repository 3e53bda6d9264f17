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
// Frozen only once its heartbeat thread has joined: a worker frozen before that is found by
// the start timeout (startTimeoutMs, 30 s), not by its heartbeats.
while (two.heartbeat === undefined) await new Promise((r) => setTimeout(r, 10));
rmSync(two.members.get(1).peerAddress.replace(/^unix:/, ''), { force: true });
two.child.kill('SIGSTOP');
const sum = await spawn(onThree, (xs) => xs.reduce((a, b) => a + b, 0), held);
console.log(`sum ${sum}`);
await shutdown();
console.log('done');

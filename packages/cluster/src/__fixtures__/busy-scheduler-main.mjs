// Run as `node busy-scheduler-main.mjs` by cluster-program.test.ts: a plain program whose main
// thread (the scheduler's) is busy in the user's synchronous code for several heartbeat
// timeouts while two local worker processes hold its data. Nothing may be lost: the workers
// keep running (same processes), the data they hold is still there, and it exits 0.
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn } from '@dtask/core';

const plugin = cluster({ workers: 2, heartbeatMs: 100, heartbeatTimeoutMs: 600 });
await configure({ plugins: [plugin] }).ready();
const pids = () =>
  plugin
    .processWorkers()
    .map((w) => `${w.worker}:${w.child?.pid}`)
    .sort()
    .join(',');
const before = pids();
// A value held by worker 2 only (its own result), to be used after the busy spell.
const onTwo = { scope: scope({ worker: 2 }) };
const held = spawn(onTwo, (n) => Array.from({ length: n }, (_, i) => i), 1000);
await spawn(onTwo, (xs) => xs.length, held);
// The user's synchronous code holds the main thread for 3 s, five heartbeat timeouts (a blocking
// wait: the event loop stops as under a long computation, without using the CPU).
Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);
const onThree = { scope: scope({ worker: 3 }) };
const sum = await spawn(onThree, (xs) => xs.reduce((a, b) => a + b, 0), held);
await new Promise((r) => setTimeout(r, 1500)); // long enough for a worker's timeout to show
console.log(`sum ${sum}`);
console.log(`same workers ${pids() === before}`);
console.log(`lost ${plugin.workers().length === 2 ? 'none' : plugin.workers().length}`);
await shutdown();

// Run as `node everywhere-main.mjs` by cluster-program.test.ts: the documented way to ship
// functions to worker processes. Once the workers are up and idle (nothing of theirs keeps
// node alive), `await everywhere(url)` must itself keep node running until every worker
// process has loaded the module.

import { cluster } from '@dtask/cluster';
import { configure, everywhere, shutdown, spawn } from '@dtask/core';

await configure({ plugins: [cluster({ workers: 2 })] }).ready();
// Let every start-up handle go, so that only the wait for the module is left.
await new Promise((r) => setTimeout(r, 300));
const url = new URL('./everywhere-tasks.mjs', import.meta.url);
await everywhere(url);
console.log('loaded');
const { double } = await import(url.href);
console.log(`value ${await spawn(double, 21)}`);
await shutdown();
console.log('done');

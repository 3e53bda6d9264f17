// Run as `node written-task-main.mjs threads|cluster` by written-task-args.test.ts: what a user
// writes, a DTask written twice in a datadeps region on worker threads (or beside a worker
// process, where `a` is made), then printed. The sequential program prints [10,20,30,40].
import { cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn, withOptions } from '@dtask/core';
import { InOut, spawnDatadeps } from '@dtask/datadeps';
import { threads } from '@dtask/threads';

const onCluster = process.argv[2] === 'cluster';
await configure({
  plugins: onCluster ? [threads({ count: 1 }), cluster({ workers: 1 })] : [threads({ count: 2 })],
}).ready();
const make = () => spawn((n) => new Float64Array(n), 4);
const a = onCluster ? withOptions({ scope: scope({ worker: 2 }) }, make) : make();
await spawnDatadeps(() => {
  spawn((x) => {
    for (let i = 0; i < x.length; i++) x[i] += i + 1;
  }, InOut(a));
  spawn((x) => {
    for (let i = 0; i < x.length; i++) x[i] *= 10;
  }, InOut(a));
});
console.log(JSON.stringify(Array.from(await a)));
await shutdown();

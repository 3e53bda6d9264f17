// Run as `node cluster-error-main.mjs` by cluster-error.test.ts: a task on a worker process
// throws a ClusterError; the program prints what came back to the scheduler's process.
import { ClusterError, cluster } from '@dtask/cluster';
import { configure, scope, shutdown, spawn } from '@dtask/core';

await configure({ plugins: [cluster({ workers: 1 })] }).ready();
const url = new URL('./cluster-error-tasks.mjs', import.meta.url);
const { everywhere } = await import('@dtask/core');
await everywhere(url);
const { failWithClusterError } = await import(url.href);
try {
  await spawn({ scope: scope({ worker: 2 }) }, failWithClusterError);
  console.log('no error');
} catch (error) {
  const e = error.cause;
  console.log(`instance ${ClusterError.isInstance(e)} ${e instanceof ClusterError}`);
  console.log(`code ${e.code} reason ${e.reason}`);
  console.log(`remote ${!e.message.endsWith(`pid ${process.pid}`)}`);
  console.log(`cause ${e.cause?.message}`);
}
await shutdown();
console.log('done');

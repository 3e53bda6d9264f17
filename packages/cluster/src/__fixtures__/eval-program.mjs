// The body of a program run with `node --input-type=module -e` by cluster-program.test.ts
// (read from this file and passed as the -e code): a cluster whose local worker processes
// must run the worker, not this code again. A worker process that runs it says so and ends,
// so that the old behaviour (workers forking workers) shows as a failure, not a fork bomb.
if (process.env.DTASK_WORKER !== undefined) {
  console.error(`RECURSED in worker ${process.env.DTASK_WORKER}`);
  process.exit(3);
}
const { configure, scope, shutdown, spawn } = await import('@dtask/core');
const { cluster } = await import('@dtask/cluster');
await configure({ plugins: [cluster({ workers: 1, threads: 1, startTimeoutMs: 10_000 })] }).ready();
const [value, flags] = await spawn(
  { scope: scope({ worker: 2, thread: 2 }) },
  (x) => [2 * x, process.execArgv],
  21,
);
console.log(`value ${value} flags ${JSON.stringify(flags)}`);
await shutdown();
console.log('done');

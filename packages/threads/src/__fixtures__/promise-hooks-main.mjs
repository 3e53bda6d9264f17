// Run as `node promise-hooks-main.mjs` by threads-promise-hooks.test.ts: tasks on a worker thread
// spawn tasks (as a streaming task there does for each batch it exchanges with the main thread);
// then a promise continuation on the main thread reports its async id, which is 0 unless
// something turned Node's promise hooks on (AsyncLocalStorage does, slowing every promise).
// Last, an async task and an async `withOptions` region on the main thread, which need them
// while they run (their context holds across their awaits), and turn them off once settled.
import { executionAsyncId } from 'node:async_hooks';
import {
  configure,
  inTask,
  scope,
  shutdown,
  spawn,
  spawnStreaming,
  streamValues,
  taskProcessor,
  withOptions,
} from '@dtask/core';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 2 })], localClosures: 'allow' }).ready();
const onThread = (thread) => ({ scope: scope({ worker: 1, thread }) });
const probe = async () => {
  await null;
  return executionAsyncId();
};
console.log(`hooks at start: ${(await probe()) !== 0}`);
const nested = await spawn(onThread(2), () => dtask.spawn(() => 41).then((v) => v + 1));
const last = spawnStreaming(() => {
  const source = spawn({ ...onThread(2), streamMaxEvals: 1000 }, () => 1);
  return spawn(onThread(3), (v) => v * 2, source);
});
let sum = 0;
for await (const v of streamValues(last)) sum += v;
console.log(`nested ${nested}, streamed ${sum}`);
console.log(`hooks after: ${(await probe()) !== 0}`);

const task = spawn(onThread(1), async () => {
  await null;
  return `in task ${inTask()} on thread ${taskProcessor().thread}, hooks ${(await probe()) !== 0}`;
});
const region = withOptions({ name: 'inner' }, async () => {
  await null;
  const t = spawn(() => 1);
  await t;
  return `spawned after an await: ${t.name}`;
});
console.log(await task);
console.log(await region);
// Turned off once no async run has started for 10 ms.
await new Promise((resolve) => setTimeout(resolve, 100));
console.log(`hooks once settled: ${(await probe()) !== 0}`);
await shutdown();

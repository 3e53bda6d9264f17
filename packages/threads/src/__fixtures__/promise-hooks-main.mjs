// Run as `node promise-hooks-main.mjs` by threads-promise-hooks.test.ts: tasks on a worker thread
// spawn tasks (as a streaming task there does for each batch it exchanges with the main thread);
// then a promise continuation on the main thread reports its async id, which is 0 unless
// something turned Node's promise hooks on (AsyncLocalStorage does, slowing every promise).
import { executionAsyncId } from 'node:async_hooks';
import { configure, scope, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 2 })] }).ready();
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
await shutdown();

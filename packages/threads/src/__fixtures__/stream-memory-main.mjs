// Run as `node --expose-gc stream-memory-main.mjs <count>` by threads-stream-memory.test.ts: a
// streaming DAG across two worker threads (a source on one, a step on the other, read on the
// main thread) carries <count> numbers. Prints the count and sum seen at the reader, their
// expected values, and the main thread's heap growth (after a full GC, the largest of samples
// taken every million values, over the heap before the stream started).
import { configure, scope, shutdown, spawn, spawnStreaming, streamValues } from '@dtask/core';
import { threads } from '@dtask/threads';

const count = Number(process.argv[2]);
await configure({ plugins: [threads({ count: 2 })] }).ready();
globalThis.gc();
const before = process.memoryUsage().heapUsed;

const step = spawnStreaming(() => {
  const source = spawn(
    { scope: scope({ worker: 1, thread: 2 }), streamMaxEvals: count },
    async function* () {
      for (let i = 0; ; i++) yield i;
    },
  );
  return spawn({ scope: scope({ worker: 1, thread: 3 }) }, (v) => v + 1, source);
});

let n = 0;
let sum = 0;
let growth = 0;
for await (const v of streamValues(step)) {
  n++;
  sum += v;
  if (n % 1_000_000 === 0) {
    globalThis.gc();
    growth = Math.max(growth, process.memoryUsage().heapUsed - before);
  }
}
await step;
globalThis.gc();
growth = Math.max(growth, process.memoryUsage().heapUsed - before);
console.log(`count ${n} expected ${count}`);
console.log(`sum ${sum} expected ${(count * (count + 1)) / 2}`);
console.log(`heap growth MiB ${(growth / 2 ** 20).toFixed(2)}`);
await shutdown();

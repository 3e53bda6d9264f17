// Run as `node --expose-gc spawn-endless.mjs N` by the peer-habits test: a producer spawns a
// task per item of an endless generator on 2 threads under maxQueue, waiting for room, and
// prints the count and sum of N results with the heap growth from the 50,000th item to the end.
import { configure, shutdown, spawn, whenQueueHasRoom } from '@dtask/core';
import { threads } from '@dtask/threads';

const total = Number(process.argv[2] ?? 1_000_000);
const ctx = configure({ plugins: [threads({ count: 2 })], maxQueue: 1024 });
await ctx.ready();
function* naturals() {
  for (let i = 0; ; i++) yield i;
}
const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
let done = 0;
let sum = 0;
let base = 0;
let peak = 0;
const started = performance.now();
for (const i of naturals()) {
  if (i === total) break;
  if (ctx.queueSize >= 1024) await whenQueueHasRoom(); // awaits only when full
  peak = Math.max(peak, ctx.queueSize);
  spawn((x) => x % 7, i).then((y) => {
    sum += y;
    done++;
  });
  if (i === 50_000) base = heap();
}
while (ctx.queueSize > 0) await new Promise((r) => setTimeout(r, 1));
await new Promise((r) => setImmediate(r));
const seconds = (performance.now() - started) / 1000;
console.log(
  JSON.stringify({
    n: done,
    sum,
    peak,
    growth: heap() - base,
    perSecond: Math.round(done / seconds),
  }),
);
await shutdown();

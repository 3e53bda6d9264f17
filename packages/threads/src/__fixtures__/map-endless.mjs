// Run as `node --expose-gc map-endless.mjs N` by the peer-habits test: maps a task over an
// endless generator on 2 threads, reads N results, and prints their count and sum with the heap
// growth between the 50,000th result and the last (after full collections).
import { configure, map, shutdown } from '@dtask/core';
import { threads } from '@dtask/threads';

const total = Number(process.argv[2] ?? 1_000_000);
await configure({ plugins: [threads({ count: 2 })] }).ready();
function* naturals() {
  for (let i = 0; ; i++) yield i;
}
const heap = () => {
  globalThis.gc();
  globalThis.gc();
  return process.memoryUsage().heapUsed;
};
let n = 0;
let sum = 0;
let base = 0;
const started = performance.now();
for await (const y of map((x) => x % 7, naturals())) {
  sum += y;
  n++;
  if (n === 50_000) base = heap();
  if (n === total) break;
}
const seconds = (performance.now() - started) / 1000;
console.log(JSON.stringify({ n, sum, growth: heap() - base, perSecond: Math.round(n / seconds) }));
await shutdown();

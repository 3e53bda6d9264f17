// Run as `node --expose-gc map-memory-main.mjs <items>` by map-memory.test.ts: a plain program,
// as a user writes it, that streams <items> numbers from a generator through
// `map((x) => x + 1, items)` (the default context) and sums the results as they come, never
// holding them. It prints one line of JSON: the count and sum it got and expected, its resident
// memory before the map and at its peak (sampled every 10 ms and at every 100,000th result), its
// heap after a full GC at a tenth of the items and at the end, and items/s.
import { map } from '@dtask/core';

const items = Number(process.argv[2] ?? 10_000_000);

function* naturals(n) {
  for (let i = 0; i < n; i++) yield i;
}

globalThis.gc();
const rssBefore = process.memoryUsage.rss();
let rssPeak = rssBefore;
const sample = setInterval(() => {
  rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
}, 10);
let count = 0;
let sum = 0;
let heapAtTenth = 0;
const t0 = performance.now();
for await (const y of map((x) => x + 1, naturals(items))) {
  count++;
  sum += y;
  if (count % 100_000 === 0) rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
  if (count === Math.floor(items / 10)) {
    globalThis.gc();
    heapAtTenth = process.memoryUsage().heapUsed;
  }
}
const seconds = (performance.now() - t0) / 1000;
clearInterval(sample);
rssPeak = Math.max(rssPeak, process.memoryUsage.rss());
globalThis.gc();
const heapAtEnd = process.memoryUsage().heapUsed;
const mib = (x) => Math.round((x / 2 ** 20) * 10) / 10;
console.log(
  JSON.stringify({
    count,
    expectedCount: items,
    sum,
    expectedSum: (items * (items + 1)) / 2,
    rssBeforeMiB: mib(rssBefore),
    rssPeakMiB: mib(rssPeak),
    heapAtTenthMiB: mib(heapAtTenth),
    heapAtEndMiB: mib(heapAtEnd),
    itemsPerSecond: Math.round(items / seconds),
  }),
);

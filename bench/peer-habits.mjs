// Feeding many small tasks to 2 worker threads, the ways a Dask, Ray or Piscina user would:
// `map` over a sync and an async iterable, and a producer under `maxQueue` waiting with
// `whenQueueHasRoom()` when full, each against spawning the same tasks in batches by hand
// (spawn 1,000, await them all, repeat; from the same kind of source), in the same process,
// rounds alternating, on the built dist:
//   node bench/peer-habits.mjs [--quick] [--rounds=5]
// Prints items/s (median of the rounds) and each way's ratio to the hand batches.
import { configure, map, shutdown, spawn, whenQueueHasRoom } from '@dtask/core';
import { threads } from '@dtask/threads';
import { fixed, int, median, parseFlags, settle, table } from './shared.mjs';

const { quick, rounds } = parseFlags();
const N = quick ? 50_000 : 200_000;
const BATCH = 1_000;
const MAX_QUEUE = 1_024;
const f = (x) => x % 7;
const expected = (() => {
  let s = 0;
  for (let i = 0; i < N; i++) s += i % 7;
  return s;
})();

async function* asyncItems(n) {
  for (let i = 0; i < n; i++) yield i;
}
function* items(n) {
  for (let i = 0; i < n; i++) yield i;
}

const ways = {
  /** The reference: spawn a batch, await it all, repeat. */
  'hand batches of 1,000': async () => {
    let sum = 0;
    for (let i = 0; i < N; i += BATCH) {
      const batch = [];
      for (let j = i; j < Math.min(N, i + BATCH); j++) batch.push(spawn(f, j));
      for (const y of await Promise.all(batch)) sum += y;
    }
    return sum;
  },
  'map, sync iterable': async () => {
    let sum = 0;
    for await (const y of map(f, items(N))) sum += y;
    return sum;
  },
  'hand batches of 1,000 from an async iterable': async () => {
    let sum = 0;
    let batch = [];
    for await (const i of asyncItems(N)) {
      batch.push(i);
      if (batch.length === BATCH) {
        for (const y of await Promise.all(batch.map((j) => spawn(f, j)))) sum += y;
        batch = [];
      }
    }
    for (const y of await Promise.all(batch.map((j) => spawn(f, j)))) sum += y;
    return sum;
  },
  'map, async iterable (batchSize 256)': async () => {
    let sum = 0;
    for await (const y of map(f, asyncItems(N), { batchSize: 256 })) sum += y;
    return sum;
  },
  'spawn under maxQueue 1,024': async () => {
    let sum = 0;
    let done = 0;
    for (let i = 0; i < N; i++) {
      // Await only when full: a producer with room spawns on without yielding.
      if (ctx.queueSize >= MAX_QUEUE) await whenQueueHasRoom();
      spawn(f, i).then((y) => {
        sum += y;
        done++;
      });
    }
    while (done < N) await new Promise((r) => setTimeout(r, 0));
    return sum;
  },
};

const ctx = configure({ plugins: [threads({ count: 2 })], maxQueue: MAX_QUEUE });
await ctx.ready();
const samples = new Map(Object.keys(ways).map((k) => [k, []]));
for (let round = -1; round < rounds; round++) {
  for (const [name, run] of Object.entries(ways)) {
    await settle();
    const t0 = performance.now();
    const sum = await run();
    const ms = performance.now() - t0;
    if (sum !== expected) throw new Error(`${name}: sum ${sum}, expected ${expected}`);
    if (round >= 0) samples.get(name).push(N / (ms / 1000)); // the first round warms up
  }
}
await shutdown();

const reference = median(samples.get('hand batches of 1,000'));
const asyncReference = median(samples.get('hand batches of 1,000 from an async iterable'));
console.log(`${int(N)} tasks (x % 7) on 2 worker threads, median of ${rounds} rounds\n`);
console.log(
  table(
    ['way', 'items/s', 'spread', '÷ hand batches (same source)'],
    [...samples].map(([name, xs]) => [
      name,
      int(median(xs)),
      `${fixed(((Math.max(...xs) - Math.min(...xs)) / median(xs)) * 100, 0)}%`,
      fixed(median(xs) / (name.includes('async') ? asyncReference : reference)),
    ]),
  ),
);

import { configure, shutdown, spawn } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';

const store = lmdb({ memoryLimit: 1 << 20 }); // 1 MiB in memory; the rest spills to disk
await configure({ plugins: [threads({ count: 2 }), store] }).ready();
const blocks = Array.from(
  { length: 16 },
  (_, i) => spawn((v) => new Float64Array(32768).fill(v), i), // 16 blocks of 256 KiB: 4 MiB in all
);
await Promise.all(blocks.map((b) => spawn((x) => x.length, b)));
const sums = blocks.map((b) => spawn((x) => x.reduce((s, v) => s + v, 0), b));
console.log((await Promise.all(sums)).reduce((s, v) => s + v, 0)); // 3932160
await store.flush();
const { spills, unspills, bytesSpilled, bytesUnspilled } = store.stats();
console.log({ spills, unspills, bytesSpilled, bytesUnspilled });
await shutdown();

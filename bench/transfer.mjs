// A 64 MiB argument sent to a worker thread: copied, or moved with the `transfer` option, in
// dtask and in Piscina 5 (`transferList`), rounds alternating between the four ways in one
// process, on the built dist:
//   node bench/transfer.mjs [--quick] [--rounds=9]
// Prints the milliseconds from the call to the result of one task that reads the argument's
// last byte (median and range of the rounds; the buffer is made and filled outside the timing).
import { configure, scope, shutdown, spawn } from '@dtask/core';
import { threads } from '@dtask/threads';
import { Piscina } from 'piscina';
import { fixed, median, parseFlags, table } from './shared.mjs';

const { quick, rounds } = parseFlags(process.argv.slice(2), 9);
const BYTES = (quick ? 16 : 64) * 2 ** 20;
const lastByte = (bytes) => bytes[bytes.length - 1];
const onThread2 = scope({ worker: 1, thread: 2 });

await configure({ plugins: [threads({ count: 2 })] }).ready();
const pool = new Piscina({
  filename: new URL('./fixtures/pool-worker.mjs', import.meta.url).href,
  minThreads: 2,
  maxThreads: 2,
});

const ways = {
  'dtask, copied': (b) => spawn({ scope: onThread2 }, lastByte, b),
  'dtask, transfer: [b.buffer]': (b) =>
    spawn({ scope: onThread2, transfer: [b.buffer] }, lastByte, b),
  'Piscina, copied': (b) => pool.run(b, { name: 'lastByte' }),
  'Piscina, transferList: [b.buffer]': (b) =>
    pool.run(b, { name: 'lastByte', transferList: [b.buffer] }),
};

const times = Object.fromEntries(Object.keys(ways).map((k) => [k, []]));
for (let round = -1; round < rounds; round++) {
  for (const [name, run] of Object.entries(ways)) {
    const bytes = new Uint8Array(BYTES).fill(round & 0x7f);
    bytes[BYTES - 1] = 42;
    const started = performance.now();
    const got = await run(bytes);
    const ms = performance.now() - started;
    if (got !== 42) throw new Error(`${name}: read ${got}, expected 42`);
    if (round >= 0) times[name].push(ms); // round -1 warms up
  }
}
await shutdown();
await pool.destroy();

console.log(
  `One task reading a ${BYTES / 2 ** 20} MiB argument on a worker thread, ${rounds} rounds:`,
);
console.log(
  table(
    ['way', 'median ms', 'min–max ms'],
    Object.entries(times).map(([name, xs]) => [
      name,
      fixed(median(xs), 1),
      `${fixed(Math.min(...xs), 1)}–${fixed(Math.max(...xs), 1)}`,
    ]),
  ),
);

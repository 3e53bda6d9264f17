// Run as `node elastic-main.mjs <idleTimeoutMs> <waitForRetire>` by threads-elastic.test.ts:
// a pool of 1 to 2 threads takes a burst (it grows to 2), optionally waits until the idle
// thread has retired, prints what it saw and does NOT call shutdown(): the program must end.
import { configure, spawn } from '@dtask/core';
import { threads } from '@dtask/threads';

const [idleTimeoutMs, waitForRetire] = [Number(process.argv[2]), process.argv[3] === 'true'];
const ctx = configure({ plugins: [threads({ min: 1, max: 2, idleTimeoutMs })] });
await ctx.ready();
const count = () => ctx.processors().filter((p) => p.id !== 'thread:1:1').length;
let most = count();
const watch = setInterval(() => {
  most = Math.max(most, count());
}, 2);
const busy = (i) => {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20); // holds its thread 20 ms
  return i;
};
const burst = Array.from({ length: 40 }, (_, i) => spawn(busy, i));
const sum = (await Promise.all(burst)).reduce((a, b) => a + b, 0);
most = Math.max(most, count());
if (waitForRetire) {
  while (count() > 1) await new Promise((resolve) => setTimeout(resolve, 10));
}
clearInterval(watch);
console.log(JSON.stringify({ sum, expected: (39 * 40) / 2, most, atEnd: count() }));

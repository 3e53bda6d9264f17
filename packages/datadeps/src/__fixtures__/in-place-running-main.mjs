// Run as `node in-place-running-main.mjs` by in-place-loss.test.ts: what a user writes. Three
// tasks of a region write shared memory in place on one worker thread: the first adds 1 and
// awaits; meanwhile the second, once the first has begun, ends well (the thread's report of it
// leaves while the first still runs), and the third, which waits for the second, ends the thread
// (process.exit) the first time it runs. The first began before that report left and may have
// written: it must not run again on the replacement thread (its count would be 2); it fails
// instead. Prints what happened.
import { configure, shutdown, spawn } from '@dtask/core';
import { InOut, spawnDatadeps } from '@dtask/datadeps';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 1 })] }).ready();
const counts = new Int32Array(new SharedArrayBuffer(12));
const x = counts.subarray(0, 1);
const w = counts.subarray(1, 2);
let first;
let second;
let third;
const region = spawnDatadeps(() => {
  // It only waits (occupancy 0): the thread gets the other two while it runs. Its 10 s are cut
  // short when the thread ends.
  first = spawn(
    { occupancy: 0 },
    async (v) => {
      globalThis.firstBegan = true;
      Atomics.add(v, 0, 1);
      await new Promise((resolve) => setTimeout(resolve, 10_000));
      return 'first';
    },
    InOut(x),
  );
  // Ends once the first has begun on the thread (the scheduler promises no order between
  // independent tasks: under load the second, then the third, could otherwise run and end the
  // thread before the first began, which then ran once on the replacement).
  second = spawn(
    { occupancy: 0 },
    async (v) => {
      for (let i = 0; i < 2000 && !globalThis.firstBegan; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      Atomics.add(v, 0, 1);
      return 'second';
    },
    InOut(w),
  );
  third = spawn((v) => {
    if (Atomics.add(v, 0, 1) === 1) process.exit(7);
    return 'third';
  }, InOut(w));
});
const outcome = (t) =>
  t.then(
    (v) => ({ value: v }),
    (e) => ({ error: e.cause?.code ?? e.code, message: String(e.cause?.message ?? e.message) }),
  );
const [a, b, c, r] = await Promise.all([first, second, third, region].map(outcome));
console.log(
  JSON.stringify({ first: a, second: b, third: c, region: r.error ?? 'ok', x: x[0], w: w[0] }),
);
await shutdown();

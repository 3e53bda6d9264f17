// Run as `node in-place-loss-main.mjs` by in-place-loss.test.ts: what a user writes. Three
// tasks of a region write shared memory in place on one worker thread: the first adds 1 and
// awaits; the second adds 1 and ends the thread (process.exit) the first time it runs; the
// third, queued behind it, adds 1. The first two began and may have written: they must not
// run again (a count would be 2), they fail instead; the third, which had not begun when the
// thread ended, runs on the replacement thread (or, if the second had to wait for the first to
// begin, it may have run and ended well before). Prints what happened.
import { configure, shutdown, spawn } from '@dtask/core';
import { InOut, spawnDatadeps } from '@dtask/datadeps';
import { threads } from '@dtask/threads';

await configure({ plugins: [threads({ count: 1 })] }).ready();
const counts = new Int32Array(new SharedArrayBuffer(12));
const x = counts.subarray(0, 1);
const y = counts.subarray(1, 2);
const z = counts.subarray(2, 3);
let first;
let second;
let third;
const region = spawnDatadeps(() => {
  // It only waits (occupancy 0), marking its thread first. Its 20 s are cut short when the
  // thread ends.
  first = spawn(
    { occupancy: 0 },
    async (v) => {
      globalThis.firstBegan = true;
      Atomics.add(v, 0, 1);
      await new Promise((resolve) => setTimeout(resolve, 20_000));
      return 'first';
    },
    InOut(x),
  );
  // Ends the thread once the first has begun there (the scheduler promises no order between
  // independent tasks; under load the second could otherwise start first).
  second = spawn(
    { occupancy: 0 },
    async (w) => {
      for (let i = 0; i < 2000 && !globalThis.firstBegan; i++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (Atomics.add(w, 0, 1) === 0) process.exit(7);
      return 'second';
    },
    InOut(y),
  );
  // Says whether it ran on the thread that ended (marked by the first) or on its replacement.
  third = spawn((v) => {
    Atomics.add(v, 0, 1);
    return globalThis.firstBegan ? 'third, on the ended thread' : 'third';
  }, InOut(z));
});
const outcome = (t) =>
  t.then(
    (v) => ({ value: v }),
    (e) => ({ error: e.cause?.code ?? e.code, message: String(e.cause?.message ?? e.message) }),
  );
const [a, b, c, r] = await Promise.all([first, second, third, region].map(outcome));
const counted = { x: x[0], y: y[0], z: z[0] };
console.log(JSON.stringify({ first: a, second: b, third: c, region: r.error ?? 'ok', ...counted }));
await shutdown();

// Random DAGs against their sequential meaning: big and small results, inputs on other
// threads, scopes, cancellation right after spawn, and every result fetched while the graph
// still runs (regression: that hung tasks sent ahead, see worker/outgoing-args.ts).
import { type DTask, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

const MOD = 1_000_003;
const first = (x: number | Float64Array) => (typeof x === 'number' ? x : x[0]);
// Self-contained, so they travel as source. Big results (4.8 KB) stay on their thread.
const leaf = (v: number) => v;
const bigLeaf = (v: number) => new Float64Array(600).fill(v);
const sum = (k: number, ...xs: (number | Float64Array)[]) => {
  let t = k;
  for (const x of xs) t += typeof x === 'number' ? x : x[0];
  return t % 1_000_003;
};
const bigSum = (k: number, ...xs: (number | Float64Array)[]) => {
  let t = k;
  for (const x of xs) t += typeof x === 'number' ? x : x[0];
  return new Float64Array(600).fill(t % 1_000_003);
};
const slowCopy = (ms: number, x: number | Float64Array) => {
  const end = performance.now() + ms;
  while (performance.now() < end);
  return typeof x === 'number' ? x : x[0];
};

const where = [
  undefined,
  { scope: scope({ worker: 1, thread: 1 }) },
  { scope: scope({ worker: 1, thread: 2 }) },
  { scope: scope({ worker: 1, thread: 3 }) },
];

describe('threads: random DAGs', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: 300 tasks give their sequential values, or fail exactly where an input was cancelled`, async () => {
      const { ctx } = await rig();
      let s = seed;
      const rnd = () => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s / 2 ** 32;
      };
      const pick = <T>(xs: readonly T[]) => xs[Math.floor(rnd() * xs.length)];
      const tasks: DTask<number | Float64Array>[] = [];
      const expected: number[] = [];
      const fails: boolean[] = [];
      for (let i = 0; i < 300; i++) {
        const options = pick(where) ?? {};
        const k = Math.floor(rnd() * 1000);
        let ins: number[] = [];
        if (i < 10 || rnd() < 0.15) {
          const f: (v: number) => number | Float64Array = rnd() < 0.5 ? bigLeaf : leaf;
          tasks.push(ctx.spawn(options, f, k));
          expected.push(k);
        } else if (rnd() < 0.1) {
          ins = [Math.floor(rnd() * i)];
          tasks.push(ctx.spawn(options, slowCopy, 2, tasks[ins[0]]));
          expected.push(expected[ins[0]]);
        } else {
          ins = Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => Math.floor(rnd() * i));
          const f: (k: number, ...xs: (number | Float64Array)[]) => number | Float64Array =
            rnd() < 0.5 ? bigSum : sum;
          tasks.push(ctx.spawn(options, f, k, ...ins.map((j) => tasks[j])));
          expected.push(ins.reduce((t, j) => t + expected[j], k) % MOD);
        }
        const cancelled = rnd() < 0.02 && tasks[i].cancel();
        fails.push(cancelled || ins.some((j) => fails[j]));
      }
      const outcomes = await Promise.all(
        tasks.map((t) =>
          t.fetch().then(first, (e: { cause?: { code?: string } }) => e.cause?.code),
        ),
      );
      const want = expected.map((v, i) => (fails[i] ? 'DTASK_CANCELLED' : v));
      expect(outcomes).toEqual(want);
    });
  }
});

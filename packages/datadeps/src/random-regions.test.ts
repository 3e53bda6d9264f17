// Random regions against the sequential program: 60 tasks per region, each updating a random
// range of one array in place from other random ranges of it (overlapping or not), on 2 worker
// threads; the array is a SharedArrayBuffer (written in place) or an ordinary one (copied to
// the threads and written back).
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';
import { In, InOut, spawnDatadeps } from './index.js';

/** w[i] = 3·w[i] + Σ r[i mod |r|], mod 1,000,003: order-sensitive, exact in doubles. */
const update = (w: Float64Array, ...rs: Float64Array[]) => {
  for (let i = 0; i < w.length; i++) {
    let t = w[i] * 3;
    for (const r of rs) t += r[i % r.length];
    w[i] = t % 1_000_003;
  }
};

type Range = [number, number];

describe('spawnDatadeps: random regions', () => {
  for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
    it(`seed ${seed}: equals the sequential program`, async () => {
      const { ctx } = await rig();
      let s = seed;
      const rnd = () => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s / 2 ** 32;
      };
      const L = 4096;
      const range = (most: number): Range => {
        const a = Math.floor(rnd() * L);
        return [a, Math.min(L, a + 1 + Math.floor(rnd() * most))];
      };
      const ops = Array.from({ length: 60 }, () => {
        const w = range(600);
        const reads = Array.from({ length: Math.floor(rnd() * 3) }, () => range(400));
        return { w, reads };
      });
      const initial = Float64Array.from({ length: L }, (_, i) => (i * 7 + seed) % 101);
      const expected = initial.slice();
      for (const { w, reads } of ops) {
        update(expected.subarray(...w), ...reads.map((r) => expected.subarray(...r)));
      }
      const shared = seed % 2 === 0;
      const data = shared ? new Float64Array(new SharedArrayBuffer(8 * L)) : new Float64Array(L);
      data.set(initial);
      await spawnDatadeps(() => {
        for (const { w, reads } of ops) {
          ctx.spawn(
            update,
            InOut(data.subarray(...w)),
            ...reads.map((r) => In(data.subarray(...r))),
          );
        }
      });
      expect(data).toEqual(expected);
    });
  }
});

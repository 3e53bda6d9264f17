// Random regions against the sequential program: 60 tasks per region, each updating a random
// range of one array in place from other random ranges of it (overlapping or not), on 2 worker
// threads; the array is a SharedArrayBuffer (written in place) or an ordinary one (copied to
// the threads and written back).
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';
import { In, InOut, type StridedView, spawnDatadeps, view } from './index.js';

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

/** The same update over 2-D strided views (tiles of a matrix), element by element in row order. */
const updateTile = (w: StridedView<Float64Array>, ...rs: StridedView<Float64Array>[]) => {
  const [rows, cols] = w.shape;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const at = w.offset + i * w.strides[0] + j * w.strides[1];
      let t = w.data[at] * 3;
      for (const r of rs) {
        const k = (i * cols + j) % (r.shape[0] * r.shape[1]);
        t +=
          r.data[
            r.offset + Math.floor(k / r.shape[1]) * r.strides[0] + (k % r.shape[1]) * r.strides[1]
          ];
      }
      w.data[at] = t % 1_000_003;
    }
  }
};

describe('spawnDatadeps: random regions of a matrix in shared memory', () => {
  for (const seed of [1, 2, 3, 4]) {
    it(`seed ${seed}: rectangles written in place equal the sequential program`, async () => {
      const { ctx } = await rig();
      let s = seed;
      const rnd = () => {
        s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
        return s / 2 ** 32;
      };
      const N = 64;
      const span = (most: number): Range => {
        const a = Math.floor(rnd() * N);
        return [a, Math.min(N, a + 1 + Math.floor(rnd() * most))];
      };
      const ops = Array.from({ length: 60 }, () => ({
        w: [span(24), span(24)] as const,
        reads: Array.from({ length: Math.floor(rnd() * 3) }, () => [span(16), span(16)] as const),
      }));
      const initial = Float64Array.from({ length: N * N }, (_, i) => (i * 7 + seed) % 101);
      const plain = { data: initial.slice(), shape: [N, N], strides: [N, 1], offset: 0 };
      for (const { w, reads } of ops) {
        updateTile(view(plain, ...w), ...reads.map((r) => view(plain, ...r)));
      }
      const data = new Float64Array(new SharedArrayBuffer(8 * N * N));
      data.set(initial);
      const m = { data, shape: [N, N], strides: [N, 1], offset: 0 };
      await spawnDatadeps(() => {
        for (const { w, reads } of ops) {
          ctx.spawn(updateTile, InOut(view(m, ...w)), ...reads.map((r) => In(view(m, ...r))));
        }
      });
      expect(data).toEqual(plain.data);
    });
  }
});

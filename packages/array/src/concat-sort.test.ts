// Dagger's test/array/core.jl testsets "concat" and "sort", and reductions with `init`
// (Julia's `init`), 0-based, against plain single-threaded results on random inputs, odd sizes
// and several blockings, on 2 real worker threads and on 2 real worker processes.
import { ArgumentError } from '@dtask/core';
import { expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { Blocks, cat, DArray, distribute, hcat, prod, sort, vcat } from './index.js';

/** `[a b]` / `[a; b]` of column-major m×n matrices, plainly. */
function catPlain(a: ArrayLike<number>, b: ArrayLike<number>, m: number, n: number, dims: 0 | 1) {
  if (dims === 1) return [...Array.from(a), ...Array.from(b)];
  const out: number[] = [];
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < m; i++) out.push(a[i + j * m]);
    for (let i = 0; i < m; i++) out.push(b[i + j * m]);
  }
  return out;
}

const isless = (x: number, y: number) => (Number.isNaN(x) ? false : Number.isNaN(y) ? true : x < y);
const plainSort = (
  x: number[],
  cmp = (a: number, b: number) => (isless(a, b) ? -1 : isless(b, a) ? 1 : 0),
) => [...x].sort(cmp);

describeOnRigs('on %s', (rig) => {
  it('concat', async () => {
    const m = random(75 * 75, 3);
    const x = distribute(m, [75, 75], new Blocks(10, 20), { context: rig.context });
    const y = distribute(m, [75, 75], new Blocks(10, 10), { context: rig.context });
    const hmm = catPlain(m, m, 75, 75, 1);
    for (const h of [hcat(x, x), hcat(x, y)]) {
      const got = await h.collect();
      expect(got.shape).toEqual([75, 150]);
      expect(Array.from(got.data)).toEqual(hmm);
    }
    expect(hcat(x, y).blocks.sizes).toEqual([10, 20]);
    const vmm = catPlain(m, m, 75, 75, 0);
    expect(Array.from((await vcat(x, x).collect()).data)).toEqual(vmm);
    // Dagger throws DimensionMismatch for vcat(x, y) (its chunks cannot line up); dtask copies
    // y into x's blocks, as copyto does across blockings.
    expect(Array.from((await vcat(x, y).collect()).data)).toEqual(vmm);
    // Odd sizes, three inputs, a view, a new dimension, vectors side by side.
    const a = random(7 * 5, 4);
    const b = random(7 * 3, 5);
    const A = distribute(a, [7, 5], new Blocks(3, 2), { context: rig.context });
    const B = distribute(b, [7, 3], new Blocks(4, 3), { context: rig.context, dtype: 'float32' });
    const three = await cat([A, B, A.view(':', [1, 3])], { dims: 1 }).collect();
    expect(three.shape).toEqual([7, 10]);
    expect(three.data).toBeInstanceOf(Float64Array);
    expect(Array.from(three.data)).toEqual([
      ...Array.from(a),
      ...Array.from(Float32Array.from(b)),
      ...Array.from(a.subarray(7, 21)),
    ]);
    const stacked = await cat([A, A], { dims: 2 }).collect();
    expect(stacked.shape).toEqual([7, 5, 2]);
    expect(Array.from(stacked.data)).toEqual([...Array.from(a), ...Array.from(a)]);
    const v = DArray.from(random(9, 6), new Blocks(4), { context: rig.context });
    const side = await hcat(
      v,
      v.map((t) => t * 2),
    ).collect();
    expect(side.shape).toEqual([9, 2]);
    const vd = Array.from(random(9, 6));
    expect(Array.from(side.data)).toEqual([...vd, ...vd.map((t) => t * 2)]);
    expect(() => vcat(A, B)).toThrow(ArgumentError);
    expect(() => vcat(A, B)).toThrow(/dimension mismatch.*along dimension 1/);
  }, 60_000);

  it('sort', async () => {
    const x = [3, 7, 1, 10, 5, 2, 9, 4, 8, 6]; // shuffle(1:10)
    for (const size of [4, 10, 1]) {
      const X = DArray.from(x, new Blocks(size), { context: rig.context });
      expect(Array.from((await (await sort(X)).collect()).data)).toEqual(plainSort(x));
      expect(Array.from((await (await sort(X, { rev: true })).collect()).data)).toEqual(
        plainSort(x).reverse(),
      );
    }
    // Dagger marks this one broken (its chunks come out uneven): the blocks stay [3, 3, 3, 1].
    const ones = await sort(DArray.ones([10], new Blocks(3), { context: rig.context }));
    expect(ones.blocks.sizes).toEqual([3]);
    expect(
      await Promise.all(ones.chunks.map((c) => c.fetch({ raw: true }).then((r) => r.fetch()))),
    ).toSatisfy((bs: { shape: number[] }[]) => bs.map((b) => b.shape[0]).join() === '3,3,3,1');
    // Random floats with NaN, odd sizes and blockings, by and lt, int32.
    const r = Array.from(random(1001, 9));
    r[17] = Number.NaN;
    r[400] = Number.NaN;
    for (const b of [37, 250, 1001, 7]) {
      const R = DArray.from(r, new Blocks(b), { context: rig.context });
      const got = Array.from((await (await sort(R)).collect()).data);
      expect(got).toEqual(plainSort(r));
      const byAbs = Array.from((await (await sort(R, { by: (t) => Math.abs(t) })).collect()).data);
      expect(byAbs).toEqual(
        plainSort(r, (p, q) =>
          isless(Math.abs(p), Math.abs(q)) ? -1 : isless(Math.abs(q), Math.abs(p)) ? 1 : 0,
        ),
      );
      // lt must be a strict weak order: `>` is not one with NaN, so its input has none.
      const finite = r.filter((t) => !Number.isNaN(t));
      const F = DArray.from(finite, new Blocks(b), { context: rig.context });
      const desc = Array.from((await (await sort(F, { lt: (p, q) => p > q })).collect()).data);
      expect(desc).toEqual(plainSort(finite).reverse());
    }
    const ints = Int32Array.from(random(333, 10), (t) => Math.floor(t * 50));
    const I = DArray.from(ints, new Blocks(40), { context: rig.context });
    const sortedInts = await (await sort(I, { rev: true })).collect();
    expect(sortedInts.data).toBeInstanceOf(Int32Array);
    expect(Array.from(sortedInts.data)).toEqual(Array.from(ints).sort((p, q) => q - p));
  }, 60_000);

  it('reductions with init, and over no elements', async () => {
    const x = random(7 * 5, 12);
    const X = distribute(x, [7, 5], new Blocks(3, 2), { context: rig.context });
    const total = Array.from(x).reduce((p, q) => p + q, 0);
    expect(await X.sum({ init: 10 })).toBeCloseTo(total + 10, 10);
    expect(await X.max({ init: 5 })).toBe(5);
    expect(await X.min({ init: -5 })).toBe(-5);
    expect(await X.reduce((p, q) => p + q, { init: 1 })).toBeCloseTo(total + 1, 10);
    const cols = await X.sum({ dims: 0, init: 1 }).collect();
    for (let j = 0; j < 5; j++) {
      const s = Array.from(x.subarray(j * 7, j * 7 + 7)).reduce((p, q) => p + q, 0);
      expect(cols.data[j]).toBeCloseTo(s + 1, 10);
    }
    const E = DArray.zeros([0, 4], new Blocks(2, 2), { context: rig.context });
    expect(await E.sum({ init: 0 })).toBe(0);
    expect(await E.max({ init: Number.NEGATIVE_INFINITY })).toBe(Number.NEGATIVE_INFINITY);
    expect(await prod(E, { init: 1 })).toBe(1);
    const along = await E.sum({ dims: 0, init: 0 }).collect();
    expect(along.shape).toEqual([1, 4]);
    expect(Array.from(along.data)).toEqual([0, 0, 0, 0]);
    expect(await E.reduce((p, q) => Math.max(p, q), { init: -1 })).toBe(-1);
    expect(() => E.max()).toThrow(/is empty; pass \{ init \}/);
    expect(() => E.mean({ init: 0 })).toThrow(/mean takes none/);
  }, 30_000);
});

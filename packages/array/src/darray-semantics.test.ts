// DArray behaviours Julia and NumPy agree on, on 2 real worker threads: 0-dimensional arrays,
// empty half-open ranges, fresh random numbers unless seeded, broadcasting over missing
// trailing dimensions, and a single reduced dimension given as a number.
import { describe, expect, it } from 'vitest';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute } from './index.js';

describe('DArray semantics shared with Julia and NumPy', () => {
  it('a 0-dimensional array: new Blocks() of shape [], one element', async () => {
    const context = await rigForTest();
    const z = DArray.fill([], new Blocks(), 4, { context });
    expect(z.grid).toEqual([]);
    expect(z.chunks).toHaveLength(1);
    const got = await z.collect();
    expect(got.shape).toEqual([]);
    expect([...got.data]).toEqual([4]);
    expect([...(await z.add(1).collect()).data]).toEqual([5]);
    expect([...(await z.map((x) => x * 3).collect()).data]).toEqual([12]);
    expect(await z.sum()).toBe(4);
    const d = distribute([7], [], new Blocks(), { context });
    expect([...(await d.mul(z).collect()).data]).toEqual([28]);
  });

  it('a half-open range with start ≥ end is empty, not an error (Julia 5:2, a[5:2], slice)', async () => {
    const context = await rigForTest();
    const data = Float64Array.from({ length: 20 }, (_, i) => i);
    const a = distribute(data, [4, 5], new Blocks(2, 2), { context });
    expect([1, 2, 3, 4].slice(3, 1)).toEqual([]);
    const empty = a.slice([3, 1], ':');
    expect(empty.shape).toEqual([0, 5]);
    const got = await empty.collect();
    expect(got.shape).toEqual([0, 5]);
    expect(got.data.length).toBe(0);
    expect(a.slice(':', [2, 2]).shape).toEqual([4, 0]);
    expect(a.slice([9, 2], ':').shape).toEqual([0, 5]); // empty wherever it starts
    expect(() => a.slice([0, 5], ':')).toThrow(/0 ≤ start, end ≤ 4/); // not empty: bounds hold
  });

  it('DArray.rand draws fresh numbers each call; the same seed gives the same numbers', async () => {
    const context = await rigForTest();
    const one = (await DArray.rand([6, 6], new Blocks(3, 3), { context }).collect()).data;
    const two = (await DArray.rand([6, 6], new Blocks(3, 3), { context }).collect()).data;
    expect([...one]).not.toEqual([...two]);
    const s1 = (await DArray.rand([6, 6], new Blocks(3, 3), { context, seed: 42 }).collect()).data;
    const s2 = (await DArray.rand([6, 6], new Blocks(3, 3), { context, seed: 42 }).collect()).data;
    expect([...s1]).toEqual([...s2]);
    expect(() => DArray.rand([2], new Blocks(1), { context, seed: 1.5 })).toThrow(
      /seed must be an integer/,
    );
  });

  it('broadcasting treats missing trailing dimensions as 1: A .+ v adds v to every column', async () => {
    const context = await rigForTest();
    const n = 10;
    const A = distribute(
      Float64Array.from({ length: n * n }, (_, i) => i),
      [n, n],
      new Blocks(4, 4),
      { context },
    );
    const v = distribute(
      Float64Array.from({ length: n }, (_, i) => 1000 * i),
      [n],
      new Blocks(4),
      { context },
    );
    const sum = await A.add(v).collect();
    expect(sum.shape).toEqual([n, n]);
    for (let j = 0; j < n; j++)
      for (let i = 0; i < n; i++) expect(sum.data[i + j * n]).toBe(i + j * n + 1000 * i);
    const other = await v.sub(A).collect(); // either side may be the shorter one
    expect(other.shape).toEqual([n, n]);
    expect(other.data[3 + 2 * n]).toBe(3000 - (3 + 2 * n));
  });

  it('sum({ dims: 0 }) takes one dimension as a number, as { dims: [0] } does', async () => {
    const context = await rigForTest();
    const data = Float64Array.from({ length: 12 }, (_, i) => i);
    const a = distribute(data, [3, 4], new Blocks(2, 2), { context });
    const byNumber = await a.sum({ dims: 0 }).collect();
    const byList = await a.sum({ dims: [0] }).collect();
    expect(byNumber.shape).toEqual([1, 4]);
    expect([...byNumber.data]).toEqual([...byList.data]);
    expect([...byNumber.data]).toEqual([3, 12, 21, 30]);
    expect((await a.max({ dims: 1 }).collect()).data[0]).toBe(9);
    expect(() => a.sum({ dims: 2 })).toThrow(
      /dims must be a dimension or a list of dimensions 0…1/,
    );
  });
});

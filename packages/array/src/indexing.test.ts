// Dagger's test/array/indexing.jl testsets ("indexing", "getindex" with "dimensionality
// reduction", "setindex", "slicing"), 0-based, against a plain single-threaded reference
// (src/__fixtures__/index-reference.ts) on random inputs, odd sizes and several blockings, on 2
// real worker threads and on 2 real worker processes. Worker processes run the built dist.
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { assignRef, type RefSelector, selectRef } from './__fixtures__/index-reference.js';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { Blocks, DArray, distribute, type Selector, stencilSteps } from './index.js';

const RAGGED = [0, 1, 8, 6, 5, 1, 3, 4]; // Dagger's [1,2,9,7,6,2,4,5], 0-based

describeOnRigs('on %s', (rig) => {
  it('indexing', async () => {
    for (const shape of [[64], [64, 64]]) {
      const n = shape.reduce((a, b) => a * b, 1);
      const A = random(n, 5);
      const DA = distribute(A, shape, new Blocks(...shape.map(() => 8)), { context: rig.context });
      expect(await DA.get(0)).toBe(A[0]);
      expect(await DA.get(n - 1)).toBe(A[n - 1]); // last(A)
      DA.set(2, 42);
      A[2] = 42;
      expect(await DA.get(2)).toBe(42);
      if (shape.length === 2) {
        expect(await DA.get(1, 3)).toBe(A[1 + 3 * 64]);
        DA.set([1, 3], 99);
        A[1 + 3 * 64] = 99;
        expect(await DA.get(1, 3)).toBe(99);
      }
      expect(Array.from((await DA.collect()).data)).toEqual(Array.from(A));
    }
  }, 30_000);

  it('getindex', async () => {
    const x = random(100, 7);
    const X = distribute(x, [10, 10], new Blocks(3, 3), { context: rig.context });
    const cases: RefSelector[][] = [
      [
        [2, 8],
        [1, 7],
      ],
      [{ indices: RAGGED }, [1, 7]],
      [{ indices: RAGGED }, { indices: [...RAGGED].reverse() }],
      [{ indices: [1, 6, 9] }, ':'],
      [{ indices: [] }, { indices: RAGGED }],
      [{ indices: [] }, { indices: [] }],
    ];
    for (const sel of cases) {
      const got = await X.slice(...(sel as Selector[])).collect();
      const want = selectRef(x, [10, 10], sel);
      expect(got.shape).toEqual(want.shape);
      expect(Array.from(got.data)).toEqual(want.data);
    }
    // dimensionality reduction
    for (const sel of [
      [{ indices: RAGGED }, 4],
      [4, { indices: RAGGED }],
    ] as RefSelector[][]) {
      const got = await X.slice(...(sel as Selector[])).collect();
      expect(got.shape).toEqual([8]);
      expect(Array.from(got.data)).toEqual(selectRef(x, [10, 10], sel).data);
    }
    expect(await X.get(4, 4)).toBe(x[4 + 4 * 10]);
    // xs[i:j, j:i] for every i, j (empty when i > j), in 2×2 blocks
    const y = random(100, 8);
    const xs = distribute(y, [10, 10], new Blocks(2, 2), { context: rig.context });
    const all: Promise<void>[] = [];
    for (let i = 0; i < 10; i++) {
      for (let j = 0; j < 10; j++) {
        const sel: RefSelector[] = [
          [i, j + 1],
          [j, i + 1],
        ];
        all.push(
          xs
            .slice(...(sel as Selector[]))
            .collect()
            .then((got) => {
              const want = selectRef(y, [10, 10], sel);
              expect(got.shape).toEqual(want.shape);
              expect(Array.from(got.data)).toEqual(want.data);
            }),
        );
      }
    }
    await Promise.all(all);
  }, 60_000);

  it('setindex', async () => {
    const x = random(100, 9);
    const y = Array.from(x);
    assignRef(
      y,
      [10, 10],
      [
        [2, 8],
        [1, 7],
      ],
      1.0,
    );
    const X = distribute(x, [10, 10], new Blocks(3, 3), { context: rig.context });
    const Y = X.with(
      [
        [2, 8],
        [1, 7],
      ],
      1.0,
    );
    expect(Array.from((await Y.collect()).data)).toEqual(y);
    expect(Array.from((await X.collect()).data)).toEqual(Array.from(x));
  }, 30_000);

  it('slicing', async () => {
    const A0 = DArray.zeros([10, 10], new Blocks(5, 3), { context: rig.context });
    expect(A0.slice([0, 2], [0, 2])).toBeInstanceOf(DArray);
    const checks: Promise<void>[] = [];
    for (let idx = 0; idx < 10; idx++) {
      const b = DArray.rand([10], new Blocks(2), { context: rig.context, seed: idx });
      const bData = (await b.collect()).data;
      // Matrix - Vector: A[:, idx] = b
      const A = DArray.zeros([10, 10], new Blocks(5, 3), { context: rig.context });
      A.set([':', idx], b);
      const want = new Array(100).fill(0);
      assignRef(want, [10, 10], [':', idx], bData);
      checks.push(A.collect().then((got) => expect(Array.from(got.data)).toEqual(want)));
      // Matrix - Vector (transposed): A[idx, :] = b' (a 1×10 DArray), and = b itself
      const bT = DArray.from({ data: bData, shape: [1, 10] }, new Blocks(1, 4), {
        context: rig.context,
      });
      const wantT = new Array(100).fill(0);
      assignRef(wantT, [10, 10], [idx, ':'], bData);
      for (const value of [bT, b]) {
        const At = DArray.zeros([10, 10], new Blocks(5, 3), { context: rig.context });
        At.set([idx, ':'], value);
        checks.push(At.collect().then((got) => expect(Array.from(got.data)).toEqual(wantT)));
      }
    }
    // Matrix - Matrix: A[idx:idx+1, idx:idx+1] = view(B, idx:idx+1, idx:idx+1)
    for (let idx = 0; idx < 9; idx++) {
      const A = DArray.zeros([10, 10], new Blocks(5, 3), { context: rig.context });
      const B = DArray.rand([10, 10], new Blocks(2, 2), { context: rig.context, seed: 40 + idx });
      const r: [number, number] = [idx, idx + 2];
      A.set([r, r], B.view(r, r));
      const bData = (await B.collect()).data;
      const want = new Array(100).fill(0);
      assignRef(want, [10, 10], [r, r], selectRef(bData, [10, 10], [r, r]).data);
      checks.push(A.collect().then((got) => expect(Array.from(got.data)).toEqual(want)));
    }
    await Promise.all(checks);
  }, 60_000);

  it('odd sizes and blockings: slices, views of views, writes through views, 3-D', async () => {
    const shape = [7, 5, 9];
    const x = random(7 * 5 * 9, 21);
    const selections: RefSelector[][] = [
      [[1, 6, 2], ':', { indices: [8, 0, 3, 3] }],
      [2, [1, 4], [0, 9, 4]],
      [{ indices: [6, 5, 0] }, 4, 8],
      [':', ':', ':'],
    ];
    for (const sizes of [
      [3, 2, 4],
      [7, 5, 9],
      [1, 4, 2],
    ]) {
      const X = distribute(x, shape, new Blocks(...sizes), { context: rig.context });
      for (const sel of selections) {
        const want = selectRef(x, shape, sel);
        for (const made of [X.slice(...(sel as Selector[])), X.view(...(sel as Selector[]))]) {
          const got = await made.collect();
          expect(got.shape).toEqual(want.shape);
          expect(Array.from(got.data)).toEqual(want.data);
        }
        // A view is an array like any other: element-wise and reductions take it.
        const v = X.view(...(sel as Selector[]));
        const sum = want.data.reduce((a, b) => a + b, 0);
        if (want.data.length > 0)
          expect(Math.abs((await v.add(1).sum()) - sum - want.data.length)).toBeLessThan(1e-9);
      }
      // A view of a view picks through both; a write into it lands in the root array.
      const outer = X.view([1, 7], ':', { indices: [8, 2, 5, 0] });
      const inner = outer.view({ indices: [3, 0] }, [1, 5, 2], 2);
      expect(inner.parent).toBe(X);
      const ref = Array.from(x);
      const innerWant = selectRef(
        selectRef(ref, shape, [[1, 7], ':', { indices: [8, 2, 5, 0] }]).data,
        [6, 5, 4],
        [{ indices: [3, 0] }, [1, 5, 2], 2],
      );
      expect(Array.from((await inner.collect()).data)).toEqual(innerWant.data);
      const before = X.mul(1); // made before the write: keeps the old values
      inner.set([':', ':'], -1);
      // root indices: rows [4, 1], columns [1, 3], depth 5 (outer's third pick at 2)
      assignRef(ref, shape, [{ indices: [4, 1] }, { indices: [1, 3] }, 5], -1);
      expect(Array.from((await X.collect()).data)).toEqual(ref);
      expect(Array.from((await outer.collect()).data)).toEqual(
        selectRef(ref, shape, [[1, 7], ':', { indices: [8, 2, 5, 0] }]).data,
      );
      expect(Array.from((await before.collect()).data)).toEqual(Array.from(x));
    }
  }, 90_000);
});

describe('indexing errors', () => {
  it('bad selectors, out-of-bounds indices and mismatched shapes are ArgumentErrors saying what to do', () => {
    const X = DArray.zeros([10, 10], new Blocks(3, 3));
    expect(() => X.view([0, 11], ':')).toThrow(ArgumentError);
    expect(() => X.view([0, 11], ':')).toThrow(/selector 0 must lie within \[0, 10\]/);
    expect(() => X.slice({ indices: [1, 10] }, ':')).toThrow(/indices within bounds/);
    expect(() => X.slice(':')).toThrow(/give 2 selectors/);
    expect(() => X.set([':', 2.5], 1)).toThrow(/integer index within bounds/);
    expect(() => X.set(100, 1)).toThrow(/linear index 100 is out of bounds 0…99/);
    expect(() => X.get(1, 2, 3)).toThrow(/one integer index per dimension/);
    const v = DArray.zeros([9], new Blocks(3));
    expect(() => X.set([':', 0], v)).toThrow(/dimension mismatch.*\[10, 1\].*\[9\]/);
    expect(() => X.set([':', 0], 'x' as never)).toThrow(/must be a number, a DArray/);
  });

  it('stencilSteps refuses to step a view in place, saying how to copy it', async () => {
    const X = DArray.zeros([10, 10], new Blocks(5, 5));
    const V = X.view([0, 5], ':');
    await expect(stencilSteps({ V }, [{ out: 'V', kernel: (at) => at.V(0, 0) }])).rejects.toThrow(
      /V is a view .*writes blocks in place.*copyto\(view, result\)/,
    );
  });
});

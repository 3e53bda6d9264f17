// Dagger's test/array/allocation.jl, its constructor testsets ("DVector/DMatrix/DArray
// constructor", "random", "ones/zeros", "distribute", "Constructor variants"), ported for
// Float32, Float64 and Int32 (Julia's Int64 has no dtype here: JavaScript numbers hold
// integers exactly only to 2⁵³) without `sprand` (dtask has no sparse arrays), on 2 real worker
// threads and on 2 real worker processes (those run the built dist).
import { expect, it } from 'vitest';
import { describeOnRigs } from './__fixtures__/rig.js';
import { AutoBlocks, Blocks, DArray, distribute, randn } from './index.js';

const TYPES = ['float32', 'float64', 'int32'] as const;
const DIMS: number[][] = [[], [100], [100, 100], [100, 100, 100]];
const typed = { float32: Float32Array, float64: Float64Array, int32: Int32Array };

/** Element-wise equality of two arrays (a loop: vitest's deep equality is slow on 10⁶ elements). */
function same(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!Object.is(a[i], b[i])) return false;
  return true;
}

/** How many elements are not > 0. */
function notPositive(a: ArrayLike<number>): number {
  let n = 0;
  for (let i = 0; i < a.length; i++) if (!(a[i] > 0)) n++;
  return n;
}

describeOnRigs('on %s', (rig) => {
  it('DVector/DMatrix/DArray constructor', async () => {
    const { context } = rig;
    for (const dtype of TYPES) {
      for (const [shape, blocks] of [
        [[], new Blocks()],
        [[64], new Blocks(8)],
        [[64, 64], new Blocks(8, 8)],
        [[64, 64, 64], new Blocks(8, 8, 8)],
      ] as [number[], Blocks][]) {
        const n = shape.reduce((a, b) => a * b, 1);
        const data = new typed[dtype](n);
        for (let i = 0; i < n; i++) data[i] = (i * 7919) % 1000;
        const da = DArray.from({ data, shape }, blocks, { context });
        expect([da.dtype, da.shape]).toEqual([dtype, shape]);
        const got = await da.collect();
        expect(got.shape).toEqual(shape);
        expect(got.data).toEqual(data);
      }
    }
  }, 120_000);

  it('random (rand and randn: the type and size asked, fresh numbers each call)', async () => {
    const { context } = rig;
    for (const dtype of TYPES) {
      for (const dims of DIMS) {
        const blocks = new Blocks(...dims.map(() => 10));
        const x = DArray.rand(dims, blocks, { context, dtype });
        expect([x.dtype, x.shape]).toEqual([dtype, dims]);
        const ax = (await x.collect()).data;
        expect(ax).toBeInstanceOf(typed[dtype]);
        expect(same((await x.collect()).data, ax)).toBe(true);
        const other = (await DArray.rand(dims, blocks, { context, dtype }).collect()).data;
        if (ax.length > 1) expect(same(other, ax)).toBe(false);
        if (dtype !== 'int32') {
          expect(notPositive(ax)).toBeLessThan(10);
          const xn = randn(dims, blocks, { context, dtype });
          expect([xn.dtype, xn.shape]).toEqual([dtype, dims]);
          const axn = (await xn.collect()).data;
          expect(axn).toBeInstanceOf(typed[dtype]);
          expect(same((await xn.collect()).data, axn)).toBe(true);
          const again = (await randn(dims, blocks, { context, dtype }).collect()).data;
          if (axn.length > 1) expect(same(again, axn)).toBe(false);
        }
      }
    }
  }, 240_000);

  it('ones/zeros', async () => {
    const { context } = rig;
    for (const dtype of TYPES) {
      for (const [make, value] of [
        [DArray.ones, 1],
        [DArray.zeros, 0],
      ] as const) {
        for (const dims of DIMS) {
          const da = make(dims, new Blocks(...dims.map(() => 10)), { context, dtype });
          const a = await da.collect();
          expect(same(a.data, new Float64Array(a.data.length).fill(value))).toBe(true);
          expect([da.dtype, a.data.constructor, a.shape]).toEqual([dtype, typed[dtype], dims]);
        }
      }
    }
  }, 240_000);

  it('distribute', async () => {
    const { context } = rig;
    const x = new Float64Array([1, 3, 2, 4]); // [1 2; 3 4], column-major
    expect((await distribute(x, [2, 2], new Blocks(1, 1), { context }).collect()).data).toEqual(x);
    const r = Float64Array.from({ length: 100 * 100 }, (_, i) => (i % 97) / 97);
    const x1 = distribute(r, [100, 100], new Blocks(10, 20), { context });
    expect((await x1.collect()).data).toEqual(r);
    expect(x1.grid).toEqual([10, 5]);
    expect(x1.chunks).toHaveLength(50);
    for (const c of x1.chunks) expect((await c).shape).toEqual([10, 20]);
    // distribute(rand(10), 2) re-distributed in blocks of 3
    const v = distribute(r.subarray(0, 10), [10], new Blocks(2), { context });
    expect((await v.reblock(new Blocks(3)).collect()).data).toEqual((await v.collect()).data);
  }, 120_000);

  it('Constructor variants (ones, zeros, rand, randn; Blocks of 10 and AutoBlocks; Float64 and Float32)', async () => {
    const { context } = rig;
    const makers = [DArray.ones, DArray.zeros, DArray.rand, randn];
    for (const make of makers) {
      for (const dims of DIMS) {
        for (const blocks of [new Blocks(...dims.map(() => 10)), new AutoBlocks()]) {
          const d = make(dims, blocks, { context });
          expect([d.dtype, d.shape.length]).toEqual(['float64', dims.length]);
          const f = make(dims, blocks, { context, dtype: 'float32' });
          expect([f.dtype, f.shape.length]).toEqual(['float32', dims.length]);
          await Promise.all([...d.chunks, ...f.chunks].map((c) => c.wait()));
        }
      }
    }
  }, 240_000);
});

import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, distribute } from './index.js';
import type { Block } from './kernels.js';
import { blockNormPart } from './norm-kernels.js';
import { norm } from './norms.js';
import {
  combineInOrder,
  combineValues,
  reduceBlocks,
  reduceBlocksWhole,
  reduceBlockWhole,
} from './reduce-kernels.js';
import { reduceWhole, reduceWholeJs, type WholeReduction } from './reduce-whole.js';
import { simdKernelsLoaded } from './simd-status.js';

// The SIMD whole-block reductions against the plain JavaScript ones. Tolerance: sums add the
// same values in another order (8 lanes side by side, float32 widened to Float64 both ways), so
// |SIMD − JS| ≤ 1e-15 · n · Σ|terms|; min and max are exact (and NaN wins in both).
const SUM_TOL = 1e-15;
const OPS: WholeReduction[] = ['sum', 'sumsq', 'sumabs', 'min', 'max', 'minabs', 'maxabs'];

let seed = 4242;
function rand(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
}
const int = (lo: number, hi: number) => lo + Math.floor((rand() + 0.5) * (hi - lo + 1));

type Dtype = 'float64' | 'float32' | 'int32';
const ctor = (d: Dtype) =>
  d === 'float32' ? Float32Array : d === 'int32' ? Int32Array : Float64Array;

/** A block of `shape`: contiguous, or a view (an offset, padding after each column, a step). */
function block(dtype: Dtype, shape: number[], how: 'contiguous' | 'padded' | 'strided'): Block {
  const C = ctor(dtype);
  const strides: number[] = [];
  const step = how === 'strided' ? 2 : 1;
  let s = step;
  for (let d = 0; d < shape.length; d++) {
    strides.push(s);
    s *= shape[d] + (how === 'padded' && d === 0 ? 3 : 0);
  }
  const offset = how === 'contiguous' ? 0 : 5;
  const data = new C(offset + s + 4).map(() => (dtype === 'int32' ? int(-50, 50) : 10 * rand()));
  return { data, shape, strides, offset };
}

/** Σ|terms| of `op` over the block's elements (the scale of a sum's rounding). */
function magnitude(op: WholeReduction, b: Block): number {
  return reduceWholeJs(op === 'sumsq' ? 'sumsq' : 'sumabs', b);
}

/**
 * `b` with its values moved near 1 (floats into [0.9, 1.1), int32 to ±1 with a rare 2), so that
 * products of thousands stay finite and meaningful.
 */
function nearOne(b: Block): Block {
  const { data } = b;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    data[i] = data instanceof Int32Array ? (v === 7 ? 2 : v < 0 ? -1 : 1) : 1 + v / 50;
  }
  return b;
}

/**
 * The SIMD product against the loop: the same factors in another order (8 lanes side by side,
 * float32 widened to Float64 both ways), so |SIMD − loop| ≤ 1e-15 · n · |loop|.
 */
function expectProdAgrees(b: Block): void {
  const got = reduceWhole('prod', b);
  const want = reduceWholeJs('prod', b);
  const n = b.shape.reduce((x, y) => x * y, 1);
  if (Math.abs(got - want) > SUM_TOL * n * Math.abs(want) + 1e-300)
    throw new Error(`prod of ${JSON.stringify(b.shape)}: ${got}, the loop's ${want}`);
}

function expectAgree(op: WholeReduction, b: Block): void {
  const got = reduceWhole(op, b);
  const want = reduceWholeJs(op, b);
  if (!op.startsWith('sum')) {
    expect(got).toBe(want);
    return;
  }
  const n = b.shape.reduce((x, y) => x * y, 1);
  expect(Math.abs(got - want)).toBeLessThanOrEqual(SUM_TOL * n * magnitude(op, b) + 1e-300);
}

describe('reduceWhole (WebAssembly SIMD reductions)', () => {
  it('runs in SIMD here', () => {
    expect(simdKernelsLoaded()).toBe(true);
  });

  for (const dtype of ['float64', 'float32', 'int32'] as Dtype[]) {
    it(`equals reduceWholeJs in ${dtype} on random and odd shapes, views and strides`, () => {
      const shapes: number[][] = [[1], [7], [15], [16], [17], [33, 1], [64, 3], [257, 5], [100]];
      shapes.push([40000]); // past the chunk the module's memory takes at a time
      for (let r = 0; r < 8; r++) shapes.push([int(1, 90), int(1, 9), int(1, 3)]);
      for (const shape of shapes)
        for (const how of ['contiguous', 'padded', 'strided'] as const)
          for (const op of OPS) expectAgree(op, block(dtype, shape, how));
    });
  }

  for (const dtype of ['float64', 'float32', 'int32'] as Dtype[]) {
    it(`prod is the loop's product within rounding in ${dtype} on random and odd shapes, views and strides`, () => {
      const shapes: number[][] = [[1], [7], [15], [16], [17], [33, 1], [64, 3], [257, 5], [100]];
      shapes.push([40000]); // past the chunk the module's memory takes at a time
      for (let r = 0; r < 8; r++) shapes.push([int(1, 90), int(1, 9), int(1, 3)]);
      for (const shape of shapes)
        for (const how of ['contiguous', 'padded', 'strided'] as const)
          expectProdAgrees(nearOne(block(dtype, shape, how)));
      // A contiguous block: the fold `prod` ran before (a function, first element then in order).
      const data = nearOne(block(dtype, [3003], 'contiguous')).data.subarray(0, 3003);
      const b: Block = { data, shape: [1001, 3], strides: [1, 1001], offset: 0 };
      const fold = reduceBlocks([0, 1], 'fn', '(a, x) => a * x', b)[0].data[0];
      const got = reduceBlocks([0, 1], 'prod', undefined, b)[0].data[0];
      expect(got).toBe(reduceWhole('prod', b));
      expect(Math.abs(got - fold)).toBeLessThanOrEqual(SUM_TOL * 3003 * Math.abs(fold));
      if (dtype === 'int32') expect(got).toBe(fold); // powers of two: exact in any order
    });
  }

  it('the product of an empty block is 1; NaN, ±0 and ±Infinity carry through it', () => {
    const empty: Block = { data: new Float64Array(4), shape: [0, 3], strides: [1, 0], offset: 0 };
    expect(reduceWhole('prod', empty)).toBe(1);
    expect(reduceWholeJs('prod', empty)).toBe(1);
    for (const [v, want] of [
      [Number.NaN, Number.NaN],
      [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY],
      [0, 0],
    ]) {
      for (const C of [Float64Array, Float32Array]) {
        const data = new C(53).fill(1);
        data[41] = v;
        const b: Block = { data, shape: [53], strides: [1], offset: 0 };
        expect(reduceWhole('prod', b)).toBe(want);
        expect(reduceWholeJs('prod', b)).toBe(want);
      }
    }
    const neg: Block = {
      data: new Float64Array(40).fill(-1),
      shape: [39],
      strides: [1],
      offset: 1,
    };
    expect(reduceWhole('prod', neg)).toBe(-1);
  });

  it('float32 products accumulate in Float64, as the JavaScript loop does', () => {
    // 1 + 2⁻²⁰ is a float32; a float32 accumulator would round every step (relative 2⁻²⁴).
    const n = 4099;
    const data = new Float32Array(n).fill(1 + 2 ** -20);
    const b: Block = { data, shape: [n], strides: [1], offset: 0 };
    const want = (1 + 2 ** -20) ** n;
    expect(Math.abs(reduceWhole('prod', b) - want)).toBeLessThanOrEqual(1e-15 * n * want);
  });

  it('sums of an empty block are 0, its min and max NaN; NaN wins min and max', () => {
    const empty: Block = { data: new Float64Array(4), shape: [0, 3], strides: [1, 0], offset: 0 };
    expect(reduceWhole('sum', empty)).toBe(0);
    expect(reduceWhole('max', empty)).toBeNaN();
    const b = block('float64', [50], 'contiguous');
    b.data[37] = Number.NaN;
    for (const op of OPS) {
      expect(reduceWhole(op, b)).toBeNaN();
      expect(reduceWholeJs(op, b)).toBeNaN();
    }
    const f = block('float32', [50], 'contiguous');
    f.data[3] = Number.NaN;
    expect(reduceWhole('min', f)).toBeNaN();
  });

  it('float32 sums accumulate in Float64, as the JavaScript loop does', () => {
    // 2²⁴ + 1 ones: a float32 accumulator would stop at 2²⁴.
    const n = 2 ** 24 + 1;
    const b: Block = { data: new Float32Array(n).fill(1), shape: [n], strides: [1], offset: 0 };
    expect(reduceWhole('sum', b)).toBe(n);
  });

  it('a block over a SharedArrayBuffer (as blocks live on threads) gives the same bits as over an ArrayBuffer', () => {
    // Copied into the SIMD module's memory another way when shared (Node's memcpy): the same
    // bytes, so the same figures, whole and along each dimension (whole runs, columns).
    for (const dtype of ['float64', 'float32'] as Dtype[]) {
      const C = ctor(dtype);
      for (const [shape, how] of [
        [[40000], 'contiguous'],
        [[700, 3], 'padded'],
        [[600, 20], 'contiguous'],
        [[257, 5], 'padded'],
      ] as const) {
        const b = block(dtype, [...shape], how);
        // At a byte offset of its own within the shared buffer (a view, as a block's may be).
        const at = 3;
        const es = C.BYTES_PER_ELEMENT;
        const sab = new SharedArrayBuffer((b.data.length + at) * es);
        const data =
          dtype === 'float32'
            ? new Float32Array(sab, at * es, b.data.length)
            : new Float64Array(sab, at * es, b.data.length);
        data.set(b.data);
        const s: Block = { ...b, data };
        for (const op of OPS) expect(reduceWhole(op, s)).toBe(reduceWhole(op, b));
        expect(reduceWhole('prod', nearOne(s))).toBe(reduceWhole('prod', nearOne(b)));
        for (const dims of [[0], [1], [0, 1]].filter((d) => d.every((k) => k < shape.length)))
          for (const op of ['sum', 'prod', 'min', 'max'])
            expect(Array.from(reduceBlocks(dims, op, undefined, s)[0].data)).toEqual(
              Array.from(reduceBlocks(dims, op, undefined, b)[0].data),
            );
      }
    }
  });

  it('reduceBlocks, reduceBlocksWhole and blockNormPart give reduceWhole’s figures', () => {
    const b = block('float64', [70, 30], 'contiguous');
    expect(reduceBlocks([0, 1], 'sum', undefined, b)[0].data[0]).toBe(reduceWhole('sum', b));
    expect(Array.from(reduceBlocksWhole('max', undefined, b, b))).toEqual([
      reduceWhole('max', b),
      reduceWhole('max', b),
    ]);
    expect(blockNormPart(2, b)).toBe(reduceWhole('sumsq', b));
    expect(blockNormPart(Number.NEGATIVE_INFINITY, b)).toBe(reduceWhole('minabs', b));
    // A function's fold is left as it was (first element, then in order).
    const fold = reduceBlocks([0, 1], 'fn', '(a, x) => a + 2 * x', b)[0].data[0];
    let want = b.data[0];
    for (let i = 1; i < b.data.length; i++) want += 2 * b.data[i];
    expect(fold).toBe(want);
  });
  it('reduceBlockWhole answers reduceBlocksWhole’s figure as a number, to the bit; combineValues folds as combineInOrder', () => {
    const blocks = [
      block('float64', [70, 30], 'contiguous'),
      block('float32', [33, 17], 'contiguous'),
      block('float64', [19, 5], 'padded'),
    ];
    const special = {
      data: Float64Array.of(-0, 2, Number.NaN, -1),
      shape: [4],
      strides: [1],
      offset: 0,
    };
    const cases: [string, string | undefined][] = [
      ['sum', undefined],
      ['prod', undefined],
      ['min', undefined],
      ['max', undefined],
      ['fn', '(a, x) => a + 2 * x'],
      // A fold that answers a string: stored as a number both ways (ToNumber).
      ['fn', '(a, x) => String(a + x)'],
    ];
    for (const [op, source] of cases) {
      const values: number[] = [];
      for (const b of [...blocks, special]) {
        const one = reduceBlockWhole(op, source, b);
        expect(typeof one).toBe('number');
        expect(Object.is(one, reduceBlocksWhole(op, source, b)[0])).toBe(true);
        values.push(one);
      }
      const one = [1];
      const parts = values.map((v) => ({
        data: Float64Array.of(v),
        shape: one,
        strides: one,
        offset: 0,
      }));
      for (const scale of [1, 1 / 3]) {
        const want = combineInOrder(op, source, scale, null, parts).data[0];
        expect(Object.is(combineValues(op, source, scale, values), want)).toBe(true);
        expect(Object.is(combineValues(op, source, scale, Float64Array.from(values)), want)).toBe(
          true,
        );
      }
    }
  });
});

describe('DArray reductions on worker threads with the SIMD reductions', () => {
  it('sum, extrema and norm on 2 threads agree with plain loops; the workers run SIMD', async () => {
    const ctx = await rigForTest();
    const N = 97;
    const values = Float64Array.from({ length: N * N }, () => 4 * rand());
    const a = distribute(values, [N, N], new Blocks(32, 20), { context: ctx });
    let sum = 0;
    let sq = 0;
    for (const v of values) {
      sum += v;
      sq += v * v;
    }
    const [s, mx, mn] = await Promise.all([a.sum(), a.max(), a.min()]);
    expect(Math.abs(s - sum)).toBeLessThanOrEqual(1e-12 * N * N);
    expect(mx).toBe(values.reduce((x, y) => Math.max(x, y)));
    expect(mn).toBe(values.reduce((x, y) => Math.min(x, y)));
    const onWorker = await ctx.spawn({ scope: scope({ worker: 1, thread: 2 }) }, simdKernelsLoaded);
    expect(onWorker).toBe(true);
    expect(Math.abs((await norm(a)) - Math.sqrt(sq))).toBeLessThanOrEqual(1e-12 * Math.sqrt(sq));
  });
});

// Reductions along dimensions (`da.sum({ dims })`, `min`, `max`, `mean`, `prod`) in SIMD against the
// loop over every element (the same fold given as a function, what the kernel ran before):
// along the last dimensions (the kept ones leading) the columns fold in the loop's order, the
// same bits; along the first dimensions each kept element's run is reduced whole in SIMD, sums
// within 1e-15 · run · Σ|x| (another order of the same additions), min and max exact. Random
// and odd shapes, float64, float32 and int32, contiguous blocks (as a DArray's are).
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { reduceDims } from './__fixtures__/reference.js';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, distribute, prod } from './index.js';
import type { Block } from './kernels.js';
import { reduceBlocks } from './reduce-kernels.js';
import { simdKernelsLoaded } from './simd-status.js';

let seed = 977;
function rand(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32 - 0.5;
}
const int = (lo: number, hi: number) => lo + Math.floor((rand() + 0.5) * (hi - lo + 1));

type Dtype = 'float64' | 'float32' | 'int32';
const FOLDS = { sum: '(a, x) => a + x', min: 'Math.min', max: 'Math.max' } as const;

/** A contiguous column-major block of `shape` (as a DArray's blocks are). */
function block(dtype: Dtype, shape: number[]): Block {
  const C = dtype === 'float32' ? Float32Array : dtype === 'int32' ? Int32Array : Float64Array;
  const strides: number[] = [];
  let s = 1;
  for (let d = 0; d < shape.length; d++) {
    strides.push(s);
    s *= shape[d];
  }
  const data = new C(s).map(() => (dtype === 'int32' ? int(-50, 50) : 10 * rand()));
  return { data, shape, strides, offset: 0 };
}

/**
 * `b` with its values moved near 1 (floats into [0.9, 1.1), int32 to ±1 with a rare 2), so that
 * products stay finite and meaningful.
 */
function nearOne(b: Block): Block {
  const { data } = b;
  for (let i = 0; i < data.length; i++) {
    const v = data[i];
    data[i] = data instanceof Int32Array ? (v === 7 ? 2 : v < 0 ? -1 : 1) : 1 + v / 50;
  }
  return b;
}

/** Every subset of the dimensions that is not all of them nor none. */
function dimSets(nd: number): number[][] {
  const out: number[][] = [];
  for (let mask = 1; mask < (1 << nd) - 1; mask++)
    out.push([...Array(nd).keys()].filter((d) => (mask >> d) & 1));
  return out;
}

describe('reductions along dimensions of a block (SIMD)', () => {
  it('runs in SIMD here', () => {
    expect(simdKernelsLoaded()).toBe(true);
  });

  for (const dtype of ['float64', 'float32', 'int32'] as Dtype[]) {
    it(`agree with the loop in ${dtype} on random and odd shapes, every set of dimensions`, () => {
      const shapes: number[][] = [
        [3, 5],
        [4, 1],
        [65, 2],
        [130, 7],
        [257, 3],
        [17, 9, 4],
        [64, 3, 2, 5],
      ];
      for (let r = 0; r < 6; r++) shapes.push([int(1, 150), int(1, 20), int(1, 4)]);
      for (const shape of shapes) {
        {
          const b = block(dtype, shape);
          for (const dims of dimSets(shape.length)) {
            for (const op of ['sum', 'min', 'max'] as const) {
              const [got] = reduceBlocks(dims, op, undefined, b);
              const [want] = reduceBlocks(dims, 'fn', FOLDS[op], b);
              const [abs] = reduceBlocks(dims, 'fn', '(a, x) => Math.abs(a) + Math.abs(x)', b);
              let run = 1;
              for (const d of dims) run *= shape[d];
              expect(got.shape).toEqual(want.shape);
              for (let i = 0; i < want.data.length; i++) {
                const tol = op === 'sum' ? 1e-15 * run * Math.abs(abs.data[i]) : 0;
                if (Math.abs(got.data[i] - want.data[i]) > tol)
                  throw new Error(
                    `${dtype} ${JSON.stringify(shape)} dims=${dims} ${op}: element ${i} is ${got.data[i]}, the loop's ${want.data[i]}`,
                  );
              }
              // Along the last dimensions of a contiguous block: the loop's order, its bits.
              const trailing = dims.every((d) => d >= shape.length - dims.length);
              if (trailing) expect(Array.from(got.data)).toEqual(Array.from(want.data));
            }
          }
        }
      }
    });
  }

  for (const dtype of ['float64', 'float32', 'int32'] as Dtype[]) {
    it(`prod agrees with the loop in ${dtype} on random and odd shapes, every set of dimensions`, () => {
      const shapes: number[][] = [
        [3, 5],
        [4, 1],
        [65, 2],
        [130, 7],
        [257, 3],
        [17, 9, 4],
      ];
      shapes.push([64, 3, 2, 5]);
      for (let r = 0; r < 6; r++) shapes.push([int(1, 150), int(1, 20), int(1, 4)]);
      for (const shape of shapes) {
        const b = nearOne(block(dtype, shape));
        for (const dims of [...dimSets(shape.length), [...shape.keys()]]) {
          const [got] = reduceBlocks(dims, 'prod', undefined, b);
          const [want] = reduceBlocks(dims, 'fn', '(a, x) => a * x', b);
          let run = 1;
          for (const d of dims) run *= shape[d];
          expect(got.shape).toEqual(want.shape);
          // Along some last dimensions (or int32's ±1 and 2: exact in any order), the loop's bits.
          const trailing =
            dims.length < shape.length && dims.every((d) => d >= shape.length - dims.length);
          const exact = dtype === 'int32' || trailing;
          for (let i = 0; i < want.data.length; i++) {
            const tol = exact ? 0 : 1e-15 * run * Math.abs(want.data[i]);
            if (!(Math.abs(got.data[i] - want.data[i]) <= tol))
              throw new Error(
                `${dtype} ${JSON.stringify(shape)} dims=${dims} prod: element ${i} is ${got.data[i]}, the loop's ${want.data[i]}`,
              );
          }
        }
      }
    });
  }

  it('prod of a DArray on 2 threads, whole and along dimensions, with and without init, equals a plain loop', async () => {
    const ctx = await rigForTest();
    const times = (a: number, v: number) => a * v;
    const cases: [Dtype, number[], number[]][] = [
      ['float64', [301, 157], [128, 64]],
      ['float32', [97, 61], [40, 33]],
      ['int32', [83, 45], [30, 17]],
      ['float64', [45, 7, 9], [16, 7, 4]],
    ];
    for (const [dtype, shape, bs] of cases) {
      const x = nearOne(block(dtype, shape)).data;
      const A = distribute(x, shape, new Blocks(...bs), { context: ctx, dtype });
      const n = x.length;
      const all = reduceDims(x, shape, [...shape.keys()], times, 1)[0];
      const whole = await prod(A);
      expect(Math.abs(whole - all)).toBeLessThanOrEqual(1e-15 * n * Math.abs(all));
      expect(Math.abs((await prod(A, { init: 0.5 })) - 0.5 * all)).toBeLessThanOrEqual(
        1e-15 * n * Math.abs(all),
      );
      const sets = [...dimSets(shape.length), [...shape.keys()]];
      for (const dims of sets) {
        for (const init of [undefined, 3]) {
          const got = (await prod(A, { dims, init }).collect()).data;
          const want = reduceDims(x, shape, dims, times, init ?? 1);
          let run = 1;
          for (const d of dims) run *= shape[d];
          for (let i = 0; i < want.length; i++)
            if (!(Math.abs(got[i] - want[i]) <= 1e-15 * run * Math.abs(want[i])))
              throw new Error(
                `${dtype} ${JSON.stringify(shape)} dims=${dims} init=${init}: element ${i} is ${got[i]}, the loop's ${want[i]}`,
              );
        }
      }
    }
    // The product over no elements is init (without it, an ArgumentError at the call naming init).
    const E = distribute(new Float64Array(0), [0, 3], new Blocks(2, 2), { context: ctx });
    expect(await prod(E, { init: 1 })).toBe(1);
    expect(Array.from((await prod(E, { dims: 0, init: 2 }).collect()).data)).toEqual([2, 2, 2]);
    expect(() => prod(E)).toThrow(/\{ init: 1 \} for a product/);
    // A negative zero keeps its sign (Julia: prod([2.0]; init=-0.0) === -0.0), whole and along dims.
    const P = distribute(Float64Array.of(2, 3, 4, 5), [2, 2], new Blocks(1, 2), { context: ctx });
    expect(Object.is(await prod(P, { init: -0 }), -0)).toBe(true);
    const along = (await prod(P, { dims: 0, init: -0 }).collect()).data;
    expect(Array.from(along, (v) => Object.is(v, -0))).toEqual([true, true]);
  }, 60_000);

  it('a DArray summed along each dimension on 2 threads equals a plain loop; workers run SIMD', async () => {
    const ctx = await rigForTest();
    const [m, n] = [301, 157];
    const x = Float64Array.from({ length: m * n }, () => rand());
    const A = distribute(x, [m, n], new Blocks(128, 64), { context: ctx });
    for (const dims of [[0], [1]]) {
      const got = (await A.sum({ dims }).collect()).data;
      const want = reduceDims(x, [m, n], dims, (a, v) => a + v, 0);
      const run = dims[0] === 0 ? m : n;
      for (let i = 0; i < want.length; i++)
        expect(Math.abs(got[i] - want[i])).toBeLessThanOrEqual(1e-15 * run * 0.5 * run + 1e-300);
      const max = (await A.max({ dims }).collect()).data;
      expect(Array.from(max)).toEqual(
        Array.from(reduceDims(x, [m, n], dims, Math.max, Number.NEGATIVE_INFINITY)),
      );
    }
    expect(await ctx.spawn({ scope: scope({ worker: 1, thread: 2 }) }, simdKernelsLoaded)).toBe(
      true,
    );
  }, 60_000);
});

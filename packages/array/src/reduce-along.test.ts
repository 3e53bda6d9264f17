// Reductions along dimensions (`da.sum({ dims })`, `min`, `max`, `mean`) in SIMD against the
// loop over every element (the same fold given as a function, what the kernel ran before):
// along the last dimensions (the kept ones leading) the columns fold in the loop's order, the
// same bits; along the first dimensions each kept element's run is reduced whole in SIMD, sums
// within 1e-15 · run · Σ|x| (another order of the same additions), min and max exact. Random
// and odd shapes, float64, float32 and int32, contiguous blocks (as a DArray's are).
import { Context, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { reduceDims } from './__fixtures__/reference.js';
import { Blocks, distribute } from './index.js';
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

  it('a DArray summed along each dimension on 2 threads equals a plain loop; workers run SIMD', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
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

// The sums' accuracy against the exactly rounded sum of the same values: the whole-block SIMD
// sum (eight lanes side by side, a chunk at a time) and a DArray's sum on 2 worker threads (the
// blocks' partial sums combined in order) are at least as accurate as the plain loop (one
// accumulator, one element after the other).
import { describe, expect, it } from 'vitest';
import { rigForTest } from './__fixtures__/rig.js';
import { Blocks, DEFAULT_SMALL_WORK_ELEMENTS, distribute, setSmallWorkElements } from './index.js';
import type { Block } from './kernels.js';
import { reduceWhole, reduceWholeJs } from './reduce-whole.js';

/** The unit roundoff of Float64. */
const U = 2 ** -53;

/**
 * The exactly rounded sum of finite `xs`: each value as an integer times a power of two, added
 * as BigInts at the smallest exponent present, converted once (`Number` of a BigInt rounds to
 * nearest, ties to even; scaling by a power of two is exact in the normal range).
 */
function exactSum(xs: ArrayLike<number>): number {
  const view = new DataView(new ArrayBuffer(8));
  const parts: [bigint, number][] = [];
  let low = Number.POSITIVE_INFINITY;
  for (let i = 0; i < xs.length; i++) {
    if (xs[i] === 0) continue;
    view.setFloat64(0, xs[i]);
    const bits = view.getBigUint64(0);
    const biased = Number((bits >> 52n) & 0x7ffn);
    let mantissa = bits & 0xfffffffffffffn;
    if (biased !== 0) mantissa |= 1n << 52n;
    const exponent = Math.max(biased, 1) - 1075;
    parts.push([bits >> 63n ? -mantissa : mantissa, exponent]);
    low = Math.min(low, exponent);
  }
  let total = 0n;
  for (const [m, e] of parts) total += m << BigInt(e - low);
  return parts.length === 0 ? 0 : Number(total) * 2 ** low;
}

let seed = 7;
function rand(): number {
  seed = (Math.imul(seed, 1664525) + 1013904223) >>> 0;
  return seed / 2 ** 32;
}

/** 256² values: positive (the loop's error grows with n), or of mixed signs and magnitudes. */
function values(kind: 'positive' | 'mixed'): Float64Array {
  return Float64Array.from({ length: 256 * 256 }, () =>
    kind === 'positive' ? (1 + rand()) / 3 : (rand() - 0.3) * 10 ** Math.floor(rand() * 12 - 6),
  );
}

const blockOf = (data: Float64Array | Float32Array): Block => ({
  data,
  shape: [256, 256],
  strides: [1, 256],
  offset: 0,
});

describe('the sums against the exactly rounded sum', () => {
  it('a 256² block in SIMD: within 2064·u·Σ|x| (a 32nd of the loop’s bound) and, over 4 blocks, no more error than the loop', () => {
    for (const kind of ['positive', 'mixed', 'float32'] as const) {
      let simdError = 0;
      let loopError = 0;
      for (let b = 0; b < 4; b++) {
        const f64 = values(kind === 'float32' ? 'mixed' : kind);
        const data = kind === 'float32' ? Float32Array.from(f64) : f64;
        const block = blockOf(data);
        const exact = exactSum(data);
        const simd = reduceWhole('sum', block);
        const loop = reduceWholeJs('sum', block);
        // Eight lanes of 2048 elements a 16,384-element chunk, folded, the chunks in order:
        // each element goes through at most 2048 + 16 additions.
        const bound = 2064 * U * reduceWholeJs('sumabs', block) * (1 + 1e-10);
        expect(Math.abs(simd - exact), `${kind} block ${b}`).toBeLessThanOrEqual(bound);
        simdError += Math.abs(simd - exact);
        loopError += Math.abs(loop - exact);
      }
      expect(simdError, kind).toBeLessThanOrEqual(loopError);
      if (kind === 'positive') expect(simdError).toBeLessThan(loopError / 4);
    }
  });

  it('a DArray’s sum on 2 worker threads, a task per block and by default: no more error than the plain loop', async () => {
    const context = await rigForTest();
    const N = 512;
    const x = Float64Array.from({ length: N * N }, () => (1 + rand()) / 3);
    let loop = 0;
    for (let i = 0; i < x.length; i++) loop += x[i];
    const exact = exactSum(x);
    const a = distribute(x, [N, N], new Blocks(256, 256), { context });
    const byDefault = await a.sum();
    setSmallWorkElements(0);
    try {
      const perBlock = await a.sum();
      expect(perBlock).toBe(byDefault);
    } finally {
      setSmallWorkElements(DEFAULT_SMALL_WORK_ELEMENTS);
    }
    expect(Math.abs(byDefault - exact)).toBeLessThan(Math.abs(loop - exact));
    expect(Math.abs(byDefault - exact)).toBeLessThanOrEqual(2064 * U * exact);
  });

  it('exactSum is exact where the loop rounds', () => {
    expect(exactSum([1, 2 ** -60, -1])).toBe(2 ** -60);
    expect(exactSum([2 ** 53, 1, 1])).toBe(2 ** 53 + 2);
    expect(exactSum([0.1, 0.2, -0.3])).toBe(2 ** -55); // the loop gives 2⁻⁵⁴
  });
});

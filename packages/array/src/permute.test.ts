// Dagger's test/array/permute.jl ("permutedims" and its testsets), 0-based, against a plain
// permutation of the same random array, on 2 real worker threads and on 2 real worker
// processes; plus 4-D and int32. Worker processes run the built dist.
import { ArgumentError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { Blocks, distribute, permutedims } from './index.js';

/** `permutedims(x, perm)` of a column-major array of `shape`, plainly. */
function permutePlain(x: ArrayLike<number>, shape: number[], perm: number[]): number[] {
  const out = perm.map((p) => shape[p]);
  const n = shape.reduce((a, b) => a * b, 1);
  const strides = shape.map((_, d) => shape.slice(0, d).reduce((a, b) => a * b, 1));
  const data: number[] = [];
  const idx = out.map(() => 0);
  for (let i = 0; i < n; i++) {
    let o = 0;
    perm.forEach((p, d) => {
      o += idx[d] * strides[p];
    });
    data.push(x[o]);
    for (let d = 0; d < out.length; d++) {
      if (++idx[d] < out[d]) break;
      idx[d] = 0;
    }
  }
  return data;
}

const CASES: [string, number[], number[], number[], number[] | null][] = [
  ['2D - square chunks', [12, 12], [4, 4], [1, 0], [4, 4]],
  ['2D - rectangular chunks', [12, 20], [4, 5], [1, 0], [5, 4]],
  ['2D - non-divisible chunks', [10, 7], [3, 4], [1, 0], null],
  ['2D - single chunk per dimension', [6, 9], [6, 9], [1, 0], [9, 6]],
  ['3D - (2,1,3) permutation', [6, 8, 10], [2, 4, 5], [1, 0, 2], [4, 2, 5]],
  ['3D - (3,2,1) permutation', [6, 8, 10], [2, 4, 5], [2, 1, 0], [5, 4, 2]],
  ['3D - (1,3,2) permutation', [6, 8, 10], [2, 4, 5], [0, 2, 1], [2, 5, 4]],
  ['3D - non-divisible chunks', [5, 7, 9], [3, 4, 5], [2, 0, 1], null],
  ['3D - identity permutation', [6, 8, 10], [2, 4, 5], [0, 1, 2], [2, 4, 5]],
  ['4D - odd sizes', [3, 5, 4, 2], [2, 3, 3, 1], [3, 1, 0, 2], null],
];

describeOnRigs('permutedims on %s', (rig) => {
  it.each(CASES)('%s', async (_name, shape, blocks, perm, newBlocks) => {
    const x = random(
      shape.reduce((a, b) => a * b, 1),
      shape.length * 7,
    );
    const X = distribute(x, shape, new Blocks(...blocks), { context: rig.context });
    const Y = permutedims(X, perm);
    const y = await Y.collect();
    expect(y.shape).toEqual(perm.map((p) => shape[p]));
    expect(Array.from(y.data)).toEqual(permutePlain(x, shape, perm));
    expect(Y.grid).toEqual(perm.map((p) => X.grid[p]));
    if (newBlocks !== null) expect(Y.blocks.sizes).toEqual(newBlocks);
  });

  it('return type', async () => {
    const x = Float32Array.from(random(96, 3));
    const X = distribute(x, [8, 12], new Blocks(4, 6), { context: rig.context });
    const Y = permutedims(X, [1, 0]);
    expect(Y.dtype).toBe('float32');
    const y = await Y.collect();
    expect(y.data).toBeInstanceOf(Float32Array);
    expect(Array.from(y.data)).toEqual(permutePlain(x, [8, 12], [1, 0]));
  });
});

describe('permutedims errors', () => {
  it('a perm that is not a permutation of the dimensions is an ArgumentError', () => {
    const X = distribute(new Float64Array(6), [2, 3], new Blocks(1, 1));
    expect(() => permutedims(X, [0, 0])).toThrow(ArgumentError);
    expect(() => permutedims(X, [1, 2])).toThrow(/each dimension 0…1.*once.*\(2, 1\) is \[1, 0\]/);
  });
});

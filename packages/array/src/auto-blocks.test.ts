// AutoBlocks: a blocking chosen from the shape and the processors in scope, accepted wherever
// Blocks is.
import { ArgumentError, Context } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { rigForTest } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import { AutoBlocks, Blocks, DArray, distribute, stencil, Wrap } from './index.js';

describe('AutoBlocks', () => {
  it('halves the dimension with the largest blocks until each processor has 4', () => {
    expect(new AutoBlocks().blocksFor([4096, 4096], 2).sizes).toEqual([2048, 1024]);
    expect(new AutoBlocks().blocksFor([4096, 4096], 16).sizes).toEqual([512, 512]);
    expect(new AutoBlocks().blocksFor([1000], 3).sizes).toEqual([63]);
    // Never halved below minSize (16): 100 → 50 → 25, and 30 and 7 stay whole.
    expect(new AutoBlocks({ perProcessor: 8 }).blocksFor([100, 30, 7], 2).sizes).toEqual([
      25, 30, 7,
    ]);
    expect(new AutoBlocks().blocksFor([20, 20], 8).sizes).toEqual([20, 20]);
    expect(new AutoBlocks({ minSize: 4 }).blocksFor([20, 20], 8).sizes).toEqual([5, 5]);
    expect(() => new AutoBlocks({ perProcessor: 0 })).toThrow(ArgumentError);
  });

  it('is accepted by zeros, distribute, from, reblock and new DArray, counting the threads', async () => {
    const ctx = await rigForTest();
    const A = DArray.zeros([512, 256], new AutoBlocks(), { context: ctx });
    expect(A.blocks).toBeInstanceOf(Blocks);
    expect(A.chunks.length).toBe(8); // 2 threads × 4
    expect(A.blocks.sizes).toEqual([128, 128]);
    const x = random(300 * 200, 4);
    const B = distribute(x, [300, 200], new AutoBlocks({ perProcessor: 2 }), { context: ctx });
    expect(B.chunks.length).toBe(4);
    expect(Array.from((await B.collect()).data)).toEqual(Array.from(x));
    const C = DArray.from({ data: x, shape: [300, 200] }, new Blocks(300, 200), {
      context: ctx,
    }).reblock(new AutoBlocks());
    expect(C.chunks.length).toBe(8);
    expectClose(
      (await stencil({ C }, (at) => at.C(-1, 1) - at.C(1, 0), { boundary: new Wrap() }).collect())
        .data,
      referenceStencil(
        { C: { data: x, shape: [300, 200] } },
        { C: [new Wrap().spec(), new Wrap().spec()] },
        (at) => at.C(-1, 1) - at.C(1, 0),
      ),
    );
    await using solo = new Context();
    expect(DArray.zeros([64, 64], new AutoBlocks(), { context: solo }).chunks.length).toBe(4);
  });
});

import { ArgumentError, DTaskFailedError, toChunk } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig, sharedF64 } from './__fixtures__/harness.js';
import { ChunkView, In, InOut, isChunkView, Out, spawnDatadeps, strided, view } from './index.js';

const A = () =>
  strided(
    Float64Array.from({ length: 64 }, (_, i) => i),
    [8, 8],
  );

function argumentError(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    expect(ArgumentError.isInstance(e)).toBe(true);
    return e as Error;
  }
  throw new Error('expected an ArgumentError');
}

describe('view on local data (0-based, half-open ranges)', () => {
  it("slices like Julia's view: ':' keeps, an integer drops, ranges and steps", () => {
    const a = A();
    const all = view(a, ':', ':');
    expect(all.shape).toEqual([8, 8]);
    const row = view(a, 0, ':');
    expect(row.shape).toEqual([8]);
    expect(row.strides).toEqual([1]);
    const col = view(a, ':', 4);
    expect([col.offset, col.strides[0]]).toEqual([4, 8]);
    const block = view(a, [0, 4], [0, 4]);
    expect(block.shape).toEqual([4, 4]);
    const stepped = view(a, [0, 7, 2], [1, 8, 2]); // Julia's 1:2:7, 2:2:8
    expect(stepped.shape).toEqual([4, 4]);
    expect(stepped.data[stepped.offset + 1 * stepped.strides[0] + 1 * stepped.strides[1]]).toBe(
      2 * 8 + 3,
    );
    const cell = view(a, 2, 3);
    expect(cell.shape).toEqual([]);
    expect(cell.data[cell.offset]).toBe(19);
    expect(cell.data).toBe(a.data); // same elements, no copy
  });

  it('a 1-D range of step 1 over a typed array is a subarray of the same memory', () => {
    const x = new Float64Array(10);
    const v = view(x, [2, 5]) as Float64Array;
    expect(v).toBeInstanceOf(Float64Array);
    v[0] = 7;
    expect(x[2]).toBe(7);
    expect(view(x, [0, 10, 3])).toMatchObject({ shape: [4], strides: [3], offset: 0 });
  });

  it('errors are ArgumentErrors that say what to do', () => {
    const a = A();
    expect(argumentError(() => view(a, 8, ':')).message).toMatch(
      /out of bounds for dimension 0 of length 8/,
    );
    expect(argumentError(() => view(a, ':', [2, 9])).message).toMatch(/\[2, 9\) is out of bounds/);
    expect(argumentError(() => view(a, ':')).message).toMatch(
      /1 slice\(s\) given for data with 2 dimension/,
    );
    expect(argumentError(() => view(a, -1, ':')).message).toMatch(/0-based/);
    expect(argumentError(() => view(a, [3, 1], ':')).message).toMatch(/0 ≤ start ≤ end/);
    expect(argumentError(() => view(a, [0, 4, 0], ':')).message).toMatch(/step must be 1 or more/);
    expect(argumentError(() => view(a, 'x' as never, ':')).message).toMatch(/is not a slice/);
    expect(argumentError(() => view(a)).message).toMatch(/one slice per dimension/);
    expect(argumentError(() => view({} as never, 0)).message).toMatch(/must be a Chunk, a DTask/);
    expect((argumentError(() => view(a, 9, 0)) as Error & { code: string }).code).toBe(
      'DTASK_ARGUMENT',
    );
  });
});

describe('view(chunkOrTask, ...) → ChunkView in a region', () => {
  it('a ChunkView resolves to the slice where the task runs; views of one chunk alias by index sets', async () => {
    const { ctx, k } = await rig();
    const m = strided(
      sharedF64(16, (i) => i),
      [4, 4],
    );
    const chunk = await toChunk(m);
    const v = view(chunk, 1, ':');
    expect(v).toBeInstanceOf(ChunkView);
    expect(isChunkView(v)).toBe(true);
    expect(String(v)).toMatch(/ChunkView\(Chunk\(.*\), 1, :\)/);
    let rowSum: unknown;
    let blockSum: unknown;
    await spawnDatadeps(() => {
      ctx.spawn(k.fill, InOut(view(chunk, 0, ':')), 100); // writes row 0 in shared memory
      rowSum = ctx.spawn(k.sum, In(view(chunk, 1, ':'))); // row 1: unaffected, may run at once
      blockSum = ctx.spawn(k.sum, In(view(chunk, [0, 2], [0, 2]))); // sees row 0's write
    });
    expect(await (rowSum as Promise<number>)).toBe(4 + 5 + 6 + 7);
    expect(await (blockSum as Promise<number>)).toBe(100 + 100 + 4 + 5);
    expect([...m.data.subarray(0, 4)]).toEqual([100, 100, 100, 100]);
  });

  it('a view of a ChunkView is a ChunkView of the same source (regression: it was rejected)', async () => {
    const { ctx, k } = await rig();
    const m = strided(
      sharedF64(16, (i) => i),
      [4, 4],
    );
    const chunk = await toChunk(m);
    const rows = view(chunk, [1, 3], ':');
    const inner = view(rows, 0, [1, 3]);
    expect(inner).toBeInstanceOf(ChunkView);
    expect(inner.source).toBe(chunk);
    expect(inner.slices).toEqual([1, [1, 3]]);
    expect(view(view(chunk, ':', [0, 4, 2]), [1, 3], 1).slices).toEqual([[1, 3], 2]);
    expect(view(view(chunk, 2, ':'), [1, 4]).slices).toEqual([2, [1, 4]]);
    expect(argumentError(() => view(rows, 0)).message).toMatch(
      /1 slice\(s\) given for a view with 2/,
    );
    expect(argumentError(() => view(rows, 2, ':')).message).toMatch(/index 2 is out of bounds/);
    let sum: unknown;
    let after: unknown;
    await spawnDatadeps(() => {
      sum = ctx.spawn(k.sum, In(inner)); // row 1, columns 1 and 2
      ctx.spawn(k.fill, InOut(view(view(chunk, [2, 4], ':'), 1, ':')), 9); // row 3
      after = ctx.spawn(k.sum, In(view(chunk, 3, ':')));
    });
    expect(await (sum as Promise<number>)).toBe(5 + 6);
    expect(await (after as Promise<number>)).toBe(36);
    expect([...m.data.subarray(12, 16)]).toEqual([9, 9, 9, 9]);
  });

  it('a view of a task result is sliced where the result is; bad slices fail the task with ArgumentError', async () => {
    const { ctx, k } = await rig();
    const made = ctx.spawn((n: number) => Float64Array.from({ length: n }, (_, i) => i), 300);
    let sum: unknown;
    let bad: unknown;
    const error = await spawnDatadeps(() => {
      sum = ctx.spawn(k.sum, view(made, [10, 20]));
      bad = ctx.spawn(k.sum, view(made, [0, 301]));
    }).catch((e) => e);
    expect(await (sum as Promise<number>)).toBe(145);
    expect(DTaskFailedError.isInstance(error)).toBe(true);
    const failure: any = await (bad as Promise<unknown>).catch((e: unknown) => e);
    expect(ArgumentError.isInstance(failure.cause)).toBe(true);
    expect(failure.cause.message).toMatch(/out of bounds for dimension 0 of length 300/);
  });

  it('Out(view(array, [i, i + 1])) of an ordinary array writes only that slice back', async () => {
    const { ctx, k } = await rig();
    const sums = new Float64Array(4).fill(-1);
    const data = sharedF64(8, (i) => i + 1);
    await spawnDatadeps(() => {
      for (let i = 0; i < 4; i++) {
        ctx.spawn(k.copyInto, Out(view(sums, [i, i + 1])), In(view(data, [2 * i, 2 * i + 1])));
      }
    });
    expect([...sums]).toEqual([1, 3, 5, 7]);
  });
});

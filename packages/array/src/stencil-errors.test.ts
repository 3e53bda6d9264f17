// Misuse of stencil/stencilSteps throws a typed error at the call, naming the shapes.
import { ArgumentError, TaskFunctionError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rigForTest } from './__fixtures__/rig.js';
import {
  Blocks,
  DArray,
  LinearExtrapolate,
  Pad,
  // biome-ignore lint/suspicious/noShadowRestrictedNames: Dagger's name for the condition
  Reflect,
  stencil,
  stencilSteps,
  Wrap,
} from './index.js';

describe('stencil errors at the call', () => {
  it('shapes, blockings, radius, boundary conditions and element types', async () => {
    const ctx = await rigForTest();
    const o = { context: ctx };
    const A = DArray.zeros([10, 8], new Blocks(4, 4), o);
    const k = (at: Record<string, (...x: number[]) => number>) => at.A(0, 0) + at.B(0, 0);
    const bad = (f: () => unknown, type: Function, code: string, text: RegExp) => {
      let error: unknown;
      try {
        f();
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(type);
      expect((error as { code: string }).code).toBe(code);
      expect((error as Error).message).toMatch(text);
    };
    const arg = (f: () => unknown, text: RegExp) => bad(f, ArgumentError, 'DTASK_ARGUMENT', text);
    arg(
      () => stencil({ A, B: DArray.zeros([10, 9], new Blocks(4, 4), o) }, k),
      /\[10, 8\] float64 in blocks \(4, 4\) but B is \[10, 9\] float64 in blocks \(4, 4\)/,
    );
    arg(
      () => stencil({ A, B: DArray.zeros([10, 8], new Blocks(5, 4), o) }, k),
      /same shape and blocks.*blocks \(5, 4\)/,
    );
    // 10 in blocks of 4: the last block has 2 elements.
    arg(
      () => stencil({ A }, (at) => at.A(3, 0), { radius: 3 }),
      /radius 3 along dimension 0 is larger than a block of \[10, 8\] float64 in blocks \(4, 4\) \(the smallest is 2 there\)/,
    );
    arg(() => stencil({ A }, (at) => at.A(2, 0)), /offset 2 along dimension 0, past the radius 1/);
    arg(() => stencil({ A }, (at) => at.A(1)), /gives 1 offsets; give one per dimension \(2\)/);
    arg(() => stencil({ A }, (at) => at.C(0, 0)), /reads at\.C, but the inputs are A/);
    arg(
      () => stencil({ A }, (at) => at.A(0, 0), { radius: 0 }),
      /radius must be a positive integer/,
    );
    arg(
      () => stencil({ A }, (at) => at.A(0, 0), { boundary: [new Wrap()] }),
      /one per dimension \(2\)/,
    );
    const I = DArray.zeros([10, 8], new Blocks(4, 4), { ...o, dtype: 'int32' });
    arg(
      () => stencil({ I }, (at) => at.I(0, 0), { boundary: new Pad(0.5) }),
      /I \(\[10, 8\] int32 in blocks \(4, 4\)\): new Pad\(0\.5\) does not fit an int32 array/,
    );
    arg(
      () => stencil({ I }, (at) => at.I(0, 0), { boundary: new LinearExtrapolate() }),
      /LinearExtrapolate\(\) needs a float64 or float32 array; got int32/,
    );
    const thin = DArray.zeros([1, 8], new Blocks(1, 4), o);
    arg(
      () => stencil({ thin }, (at) => at.thin(0, 0), { boundary: new Reflect(false) }),
      /Reflect along dimension 0 of thin needs at least 2 elements/,
    );
    const offset = 3;
    bad(
      () => stencil({ A }, (at) => at.A(0, 0) + offset),
      TaskFunctionError,
      'DTASK_TASK_FUNCTION',
      /offset/,
    );
    arg(() => stencil({ A }, (at) => Object.keys(at).length), /only as at\.NAME\(\.\.\.offsets\)/);
    arg(
      () => stencil({ A }, (at) => at.A(at.A(0, 0) > 0 ? 1 : 0, 0)),
      /offsets that do not read at; got at\.A\(at\.A\(0, 0\)/,
    );
    await expect(stencilSteps({ A }, [{ out: 'Z', kernel: () => 1 }])).rejects.toThrow(
      /out must name one of the arrays \(A\); got Z/,
    );
  });

  it('an offset computed at run time past the radius fails the task, and the scheduler goes on', async () => {
    const ctx = await rigForTest();
    const A = DArray.ones([6], new Blocks(3), { context: ctx });
    const far = stencil({ A }, (at, idx) => at.A(idx[0] - idx[0] + 2));
    await expect(far.collect()).rejects.toThrow(/offset 2 is not an integer within the radius 1/);
    expect(Array.from((await stencil({ A }, (at) => at.A(1)).collect()).data)).toEqual([
      1, 1, 1, 1, 1, 0,
    ]);
  });
});

// Class instances across threads: a class loaded with everywhere() arrives as an instance of
// that class, as an argument and as a result; an instance of any other class is a typed error
// naming the class and the fix, never a silent plain object.
import { ArgumentError, DTaskFailedError, everywhere, scope, UnsupportedError } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

const SHAPES = new URL('../../core/src/task/__fixtures__/shapes.mjs', import.meta.url);
type Shapes = typeof import('../../core/src/task/__fixtures__/shapes.mjs');
const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

async function shapesRig() {
  const r = await rig();
  await everywhere(SHAPES, r.ctx);
  const shapes = (await import('../../core/src/task/__fixtures__/shapes.mjs')) as Shapes;
  return { ...r, shapes };
}

class Local {
  constructor(readonly v: number) {}
}

describe('threads: class instances', () => {
  it('a registered class arrives as its class, as an argument and as a result', async () => {
    const { ctx, shapes } = await shapesRig();
    const p = new shapes.Point(3, 4);
    expect(await ctx.spawn(onThread(2), shapes.describePoint, p)).toEqual([true, 5, 'Point']);
    const made = await ctx.spawn(onThread(2), shapes.makePoint, 6, 8);
    expect(made).toBeInstanceOf(shapes.Point);
    expect(made.norm()).toBe(10);
    // Nested, in arrays, from one thread to another (a dependent on the other thread).
    const segs = ctx.spawn(onThread(2), shapes.segmentsOf, [p, made, new shapes.Point(0, 0)]);
    const lengths = await ctx.spawn(
      onThread(3),
      (s: InstanceType<Shapes['Segment']>[]) => s.map((x) => x.length()),
      segs,
    );
    expect(lengths).toEqual([5, 10]);
    const fetched = await segs;
    expect(fetched[1]).toBeInstanceOf(shapes.Segment);
    expect(fetched[1]!.a).toBe(fetched[0]!.b); // one object twice stays one object
    expect(fetched[0]!.a).toBeInstanceOf(shapes.Point);
  });

  it('an unregistered class as an argument is an ArgumentError naming it and the fix', async () => {
    const { ctx } = await shapesRig();
    const t = ctx.spawn(onThread(2), (x: { a: unknown[] }) => x, { a: [1, new Local(2)] });
    const error = await t.catch((e: unknown) => e);
    expect(DTaskFailedError.isInstance(error)).toBe(true);
    const cause = (error as DTaskFailedError).cause;
    expect(ArgumentError.isInstance(cause)).toBe(true);
    expect((cause as Error).message).toMatch(
      /Argument 0 of task #\d+ holds at \.a\[1\] an instance of class Local, which cannot go to thread:1:2/,
    );
    expect((cause as Error).message).toMatch(/load that module with everywhere\(module\)/);
    // On the main thread it is the very object.
    const local = new Local(5);
    expect(await ctx.spawn(onThread(1), (x: Local) => x, local)).toBe(local);
  });

  it('an unregistered class as a result is an UnsupportedError, not a plain object', async () => {
    const { ctx } = await shapesRig();
    const t = ctx.spawn(onThread(2), () => {
      class Hidden {
        n = 1;
      }
      return { h: new Hidden() };
    });
    const error = await t.catch((e: unknown) => e);
    const cause = (error as DTaskFailedError).cause;
    expect(UnsupportedError.isInstance(cause)).toBe(true);
    expect((cause as Error).message).toMatch(/holds at \.h an instance of class Hidden/);
    expect(await ctx.spawn(onThread(2), () => 7)).toBe(7);
  });
});

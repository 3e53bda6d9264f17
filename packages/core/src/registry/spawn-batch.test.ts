import { describe, expect, it } from 'vitest';
import { ArgumentError, Context, type DTask, getOptions, spawn, withOptions } from '../index.js';
import { spawnBatch } from '../plugin.js';

describe('spawnBatch', () => {
  it('spawns one task per argument list, in order, each with the batch options', async () => {
    await using ctx = new Context();
    const out: DTask<unknown>[] = [];
    const argLists = [
      [1, 2],
      [3, 4],
      [5, 6],
    ];
    spawnBatch(ctx, { name: 'pair' }, (a: number, b: number) => a * 10 + b, argLists, out);
    expect(out.map((t) => t.options.name)).toEqual(['pair', 'pair', 'pair']);
    expect(out.map((t) => t.id)).toEqual([...out.map((t) => t.id)].sort((a, b) => a - b));
    expect(await Promise.all(out)).toEqual([12, 34, 56]);
  });

  it('takes tasks as arguments, and goes where spawn goes without a context', async () => {
    const first = spawn(() => 20);
    const out: DTask<unknown>[] = [];
    withOptions({ name: 'outer' }, () =>
      spawnBatch(
        undefined,
        {},
        (x: number, y: number) => [x + y, getOptions().name],
        [
          [first, 1],
          [first, 2],
        ],
        out,
      ),
    );
    expect(await Promise.all(out)).toEqual([
      [21, 'outer'],
      [22, 'outer'],
    ]);
    expect(out.map((t) => t.options.name)).toEqual(['outer', 'outer']);
  });

  it("throws spawn's errors: a bad function or option, a promise argument, a closed context", async () => {
    const ctx = new Context();
    const out: DTask<unknown>[] = [];
    expect(() => spawnBatch(ctx, {}, 42, [[]], out)).toThrow(ArgumentError);
    expect(() => spawnBatch(ctx, { nmae: 'x' } as never, () => 1, [[]], out)).toThrow(
      /unknown option 'nmae'/,
    );
    expect(() => spawnBatch(ctx, {}, (x: number) => x, [[1], [Promise.resolve(2)]], out)).toThrow(
      /argument 1 is a Promise/,
    );
    // The tasks made before the bad one were pushed (for the caller to cancel or await).
    expect(out).toHaveLength(1);
    expect(await out[0]).toBe(1);
    await ctx.close();
    expect(() => spawnBatch(ctx, {}, () => 1, [[]], [])).toThrow(/closed/);
  });
});

import { ArgumentError } from '@dtask/core';
import { HeapMemorySpace } from '@dtask/core/plugin';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';
import {
  Deps,
  diagonal,
  InOut,
  moveInPlace,
  registerMoveInPlace,
  spawnDatadeps,
  strided,
  upperTriangular,
} from './index.js';

const here = new HeapMemorySpace(1, 1);
const there = new HeapMemorySpace(1, 2);

describe('moveInPlace (Dagger.move!)', () => {
  it('copies typed arrays, arrays and plain objects into the same objects', () => {
    const inner = new Float64Array(2);
    const to = { a: inner, b: [1, 2], n: 1, gone: true } as Record<string, unknown>;
    moveInPlace(undefined, there, here, { a: new Float64Array([5, 6]), b: [3, 4, 5], n: 2 }, to);
    expect(to.a).toBe(inner); // moved into, not replaced
    expect([...inner]).toEqual([5, 6]);
    expect(to).toEqual({ a: inner, b: [3, 4, 5], n: 2 });
  });

  it('with a modifier copies only that part of a strided view; a field name only that field', () => {
    const to = strided(new Float64Array(9), [3, 3]);
    const from = strided(new Float64Array(9).fill(1), [3, 3]);
    moveInPlace(upperTriangular, there, here, from, to);
    expect([...to.data]).toEqual([1, 1, 1, 0, 1, 1, 0, 0, 1]);
    moveInPlace(diagonal, there, here, strided(new Float64Array(9).fill(7), [3, 3]), to);
    expect([...to.data]).toEqual([7, 1, 1, 0, 7, 1, 0, 0, 7]);
    const obj = { x: 1, y: 2 };
    moveInPlace('x', there, here, { x: 10, y: 20 }, obj);
    expect(obj).toEqual({ x: 10, y: 2 });
  });

  it('copies strided views of 3 and 4 dimensions element by element (a modifier needs 2-D)', () => {
    // A 2×3×2 column-major box inside a 4×5×3 array, from a compact copy.
    const big = new Float64Array(60);
    const to = strided(big, [2, 3, 2], [1, 4, 20], 1 + 4 + 20);
    const from = strided(
      Float64Array.from({ length: 12 }, (_, i) => i + 1),
      [2, 3, 2],
      [1, 2, 6],
    );
    moveInPlace(undefined, there, here, from, to);
    const got: number[] = [];
    for (let k = 0; k < 2; k++)
      for (let j = 0; j < 3; j++)
        for (let i = 0; i < 2; i++) got.push(big[25 + i + 4 * j + 20 * k]);
    expect(got).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
    expect(big.reduce((a, b) => a + b, 0)).toBe(78); // nothing outside the box
    const four = strided(new Int32Array(16), [2, 2, 2, 2]);
    moveInPlace(
      undefined,
      there,
      here,
      strided(
        Int32Array.from({ length: 16 }, (_, i) => i),
        [2, 2, 2, 2],
      ),
      four,
    );
    expect([...four.data]).toEqual(Array.from({ length: 16 }, (_, i) => i));
    expect(() => moveInPlace(upperTriangular, there, here, from, to)).toThrow(/needs a 2-D view/);
  });

  it('over a SharedArrayBuffer: nothing to do from the same memory; a copy from a process is copied', () => {
    const to = new Float64Array(new SharedArrayBuffer(16));
    const same = new Float64Array(to.buffer);
    same[0] = 3;
    moveInPlace(undefined, there, here, same, to);
    expect([...to]).toEqual([3, 0]);
    // A worker process wrote a copy, in memory of its own: it comes back into the shared data.
    moveInPlace(undefined, there, here, new Float64Array([1, 2]), to);
    expect([...to]).toEqual([1, 2]);
  });

  it('other classes need a rule: an ArgumentError says so; a registered rule is used', () => {
    class Wrapper {
      constructor(public data: Float64Array) {}
    }
    const w = new Wrapper(new Float64Array(2));
    expect(() => moveInPlace(undefined, there, here, { data: new Float64Array(2) }, w)).toThrow(
      /registerMoveInPlace\(Wrapper, rule\)/,
    );
    const remove = registerMoveInPlace(Wrapper, (_m, _f, _t, from, to) => to.data.set(from.data));
    try {
      moveInPlace(undefined, there, here, { data: new Float64Array([3, 4]) }, w);
      expect([...w.data]).toEqual([3, 4]);
    } finally {
      remove();
    }
    expect(() => registerMoveInPlace(null as never, () => {})).toThrow(ArgumentError);
  });
});

describe('copy-in/copy-out on worker threads', () => {
  it('a class with a registered rule can be written by a region task on a worker', async () => {
    const { ctx, k } = await rig();
    class Vec {
      constructor(public data: Float64Array) {}
    }
    const remove = registerMoveInPlace(Vec, (_m, _f, _t, from, to) => to.data.set(from.data));
    try {
      const v = new Vec(new Float64Array([1, 2, 3]));
      let where: unknown;
      await spawnDatadeps(() => {
        where = ctx.spawn(k.setField, Deps(v, InOut('data')), 'data', new Float64Array([0, 0, 0]));
        ctx.spawn(k.addInto, InOut(v.data), new Float64Array([1, 1, 1]));
      });
      expect(await (where as Promise<string>)).toMatch(/^thread:1:[23]$/);
      expect(v).toBeInstanceOf(Vec);
      expect([...v.data]).toEqual([1, 1, 1]);
    } finally {
      remove();
    }
  });

  it('writes to an ordinary array land in submission order (a log built by 6 tasks)', async () => {
    const { ctx, k } = await rig();
    const log: string[] = [];
    await spawnDatadeps(() => {
      for (let i = 0; i < 6; i++) ctx.spawn(k.logAfter, InOut(log), 20 - 3 * i, `t${i}`);
    });
    expect(log).toEqual(['t0', 't1', 't2', 't3', 't4', 't5']);
  });

  it('copy-back of an ordinary matrix covers only the declared part (Deps modifiers)', async () => {
    const { ctx, k } = await rig();
    const a = strided(new Float64Array(16), [4, 4]);
    await spawnDatadeps(() => {
      ctx.spawn(k.incPart, Deps(a, InOut(upperTriangular)), 'upper');
      ctx.spawn(k.incPart, Deps(a, InOut(diagonal)), 'diagonal');
      ctx.spawn(k.incPart, Deps(a, InOut(upperTriangular)), 'unitLower'); // claims upper, writes nothing there
    });
    expect([...a.data]).toEqual([2, 1, 1, 1, 0, 2, 1, 1, 0, 0, 2, 1, 0, 0, 0, 2]);
  });
});

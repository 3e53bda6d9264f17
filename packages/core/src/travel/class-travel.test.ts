// boxClasses looks for class instances in a value leaving for another runtime: a value without
// one goes as it is (the same object, found by a quick scan), and an instance is found however
// it is reached (deep, past the quick scan's budget, in a Map, through a shared part or a cycle).
import { describe, expect, it } from 'vitest';
import { boxClasses, UnregisteredClassFound } from './class-travel.js';

class Unregistered {
  x = 1;
}

/** The `UnregisteredClassFound` that boxing `value` throws. */
function foundIn(value: unknown): UnregisteredClassFound {
  try {
    boxClasses(value);
  } catch (error) {
    if (error instanceof UnregisteredClassFound) return error;
    throw error;
  }
  throw new Error('expected an UnregisteredClassFound');
}

describe('boxClasses', () => {
  it('returns a value without instances as it is: views, arrays, plain objects, builtins', () => {
    const data = new Float64Array(new SharedArrayBuffer(64));
    const values: unknown[] = [
      data,
      { data, shape: [2, 4], strides: [4, 1], offset: 0 },
      [data, { a: [1, 2, { b: 'c' }] }, new Date(0), /x/],
      new Map([[1, { data }]]),
      new Set([data]),
    ];
    for (const value of values) expect(boxClasses(value)).toBe(value);
  });

  it('finds an instance nested in arrays and plain objects, with its path', () => {
    expect(foundIn({ a: [0, { b: new Unregistered() }] }).found).toEqual({
      className: 'Unregistered',
      path: '.a[1].b',
    });
  });

  it('finds an instance past the quick scan: after many objects, in a Map, in a cycle', () => {
    const many = Array.from({ length: 1000 }, () => ({ v: [1] }));
    many.push({ v: [new Unregistered() as never] });
    expect(foundIn(many).found.path).toBe('[1000].v[0]');
    expect(foundIn(new Map([['k', new Unregistered()]])).found.path).toBe('.get("k")');
    const cycle: Record<string, unknown> = { inner: { x: new Unregistered() } };
    cycle.self = cycle;
    expect(foundIn(cycle).found.path).toBe('.inner.x');
  });

  it('leaves what `skip` accepts alone', () => {
    const own = new Unregistered();
    const value = { own, rest: [own] };
    expect(boxClasses(value, (x) => x === own)).toBe(value);
  });
});

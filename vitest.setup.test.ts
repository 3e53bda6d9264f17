// The deep equality of typed arrays and of plain arrays of numbers that vitest.setup.ts installs
// gives vitest's own verdicts (each case here passes with and without it).
import { describe, expect, it } from 'vitest';

const f64 = (...xs: number[]) => Float64Array.from(xs);

describe('deep equality of typed arrays', () => {
  it('equal: the same constructor, length and elements (NaN equals NaN)', () => {
    expect(f64(1, 2, Number.NaN)).toEqual(f64(1, 2, Number.NaN));
    expect(f64(1, 2, Number.NaN)).toStrictEqual(f64(1, 2, Number.NaN));
    expect(new BigInt64Array([1n, -2n])).toEqual(new BigInt64Array([1n, -2n]));
    expect(new Uint8Array(0)).toEqual(new Uint8Array(0));
    expect(new Float32Array(64 ** 3).fill(0.5)).toEqual(new Float32Array(64 ** 3).fill(0.5));
    // a view equals a copy of what it sees
    expect(f64(0, 1, 2, 3).subarray(1, 3)).toEqual(f64(1, 2));
  });

  it('not equal: an element, -0 against 0, the length, the constructor', () => {
    expect(f64(1, 2, 3)).not.toEqual(f64(1, 2, 4));
    expect(f64(0)).not.toEqual(f64(-0));
    expect(f64(1, 2)).not.toEqual(f64(1, 2, 3));
    expect(f64(1, 2)).not.toEqual(Float32Array.from([1, 2]));
    expect(new Int32Array([1])).not.toEqual(new Uint32Array([1]));
    expect(f64(1, 2)).not.toEqual([1, 2]);
  });

  it('expando properties count, as vitest counts them', () => {
    const tagged = () => Object.assign(f64(1, 2), { tag: 'a' });
    expect(tagged()).toEqual(tagged());
    expect(tagged()).not.toEqual(f64(1, 2));
    expect(f64(1, 2)).not.toEqual(tagged());
    expect(tagged()).not.toEqual(Object.assign(f64(1, 2), { tag: 'b' }));
    // one element, none; values that print like the elements left out
    expect(Object.assign(f64(1), { tag: 'a' })).not.toEqual(f64(1));
    expect(Object.assign(f64(), { tag: 'a' })).not.toEqual(f64());
    expect(Object.assign(f64(1, 2), { tag: '[ ... 2 more items ]' })).not.toEqual(f64(1, 2));
    expect(f64(1, 2)).not.toEqual(Object.assign(f64(1, 2), { tag: [] }));
  });

  it('inside other values, and with asymmetric matchers', () => {
    expect({ data: f64(1, 2), shape: [2] }).toEqual({ data: f64(1, 2), shape: [2] });
    expect({ data: f64(1, 2) }).not.toEqual({ data: f64(1, 3) });
    expect([f64(1), new Int8Array([2])]).toStrictEqual([f64(1), new Int8Array([2])]);
    expect({ data: f64(1, 2) }).toEqual({ data: expect.any(Float64Array) });
    expect(f64(1, 2)).toMatchObject(f64(1, 2));
    expect([f64(1, 2)]).toContainEqual(f64(1, 2));
  });
});

describe('deep equality of plain arrays of numbers', () => {
  it('equal: the same length and elements (NaN equals NaN)', () => {
    expect([1, 2, Number.NaN]).toEqual([1, 2, Number.NaN]);
    expect([1, 2, Number.NaN]).toStrictEqual([1, 2, Number.NaN]);
    expect([]).toEqual([]);
    expect(Array.from({ length: 16384 }, (_, i) => i / 3)).toEqual(
      Array.from({ length: 16384 }, (_, i) => i / 3),
    );
  });

  it('not equal: an element, -0 against 0, the length', () => {
    expect([1, 2, 3]).not.toEqual([1, 2, 4]);
    expect([0]).not.toEqual([-0]);
    expect([1, 2]).not.toEqual([1, 2, 3]);
    expect([1, 2, 3]).not.toEqual([1, 2]);
  });

  it('holes, other values and expando properties are left to vitest', () => {
    // toEqual ignores sparseness, toStrictEqual does not
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    expect([1, , 3]).toEqual([1, undefined, 3]);
    // biome-ignore lint/suspicious/noSparseArray: the hole is the case
    expect([1, , 3]).not.toStrictEqual([1, undefined, 3]);
    expect([1, '2']).not.toEqual([1, 2]);
    expect([1, 2]).toEqual([1, expect.any(Number)]);
    expect([0.1 + 0.2]).toEqual([expect.closeTo(0.3)]);
    const tagged = () => Object.assign([1, 2], { tag: 'a' });
    expect(tagged()).toEqual(tagged());
    expect(tagged()).not.toEqual([1, 2]);
    expect([1, 2]).not.toEqual(tagged());
    expect(Object.assign([], { tag: 'a' })).not.toEqual([]);
    expect(Object.assign([1], { tag: 'a' })).not.toEqual([1]);
  });

  it('inside other values', () => {
    expect({ data: [1, 2], shape: [2] }).toEqual({ data: [1, 2], shape: [2] });
    expect({ data: [1, 2] }).not.toEqual({ data: [1, 3] });
    expect([[1], [2, 3]]).toEqual([[1], [2, 3]]);
    expect([[1], [2, 3]]).not.toEqual([[1], [2, -3]]);
    expect([[1, 2]]).toContainEqual([1, 2]);
  });
});

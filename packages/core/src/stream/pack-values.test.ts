import { describe, expect, it } from 'vitest';
import { packValues } from './pack-values.js';

describe('packValues', () => {
  it('packs a batch of numbers into a Float64Array that reads back every number as it was', () => {
    const values = [0, -0, 1.5, Number.NaN, -1e300, 2 ** 53 + 2, Number.POSITIVE_INFINITY, 7];
    const packed = packValues(values);
    expect(packed).toBeInstanceOf(Float64Array);
    expect(Array.from(packed)).toEqual(values);
    expect(Object.is(packed[1], -0)).toBe(true);
    // It survives a copy to another thread as one block.
    expect(Array.from(structuredClone(packed))).toEqual(values);
  });

  it('leaves a batch holding anything but numbers, and a short batch, as it is', () => {
    const mixed = [1, 2, 3, 4, 5, 6, 7, '8', 9];
    expect(packValues(mixed)).toBe(mixed);
    const big = [1, 2, 3, 4, 5, 6, 7, 8, 9n];
    expect(packValues(big)).toBe(big);
    const short = [1, 2, 3];
    expect(packValues(short)).toBe(short);
  });
});

import { describe, expect, it } from 'vitest';
import { AscendingIds } from './ascending-ids.js';

describe('AscendingIds', () => {
  it('holds ids added in ascending order, and no others', () => {
    const ids = new AscendingIds();
    expect(ids.has(1)).toBe(false);
    for (let id = 3; id < 3000; id += 3) ids.add(id);
    for (let id = 0; id < 3003; id++)
      expect(ids.has(id)).toBe(id >= 3 && id < 3000 && id % 3 === 0);
  });

  it('holds an id added out of order too', () => {
    const ids = new AscendingIds();
    ids.add(10);
    ids.add(20);
    ids.add(5);
    ids.add(20);
    expect([5, 10, 20].map((id) => ids.has(id))).toEqual([true, true, true]);
    expect([4, 6, 15, 21].map((id) => ids.has(id))).toEqual([false, false, false, false]);
  });
});

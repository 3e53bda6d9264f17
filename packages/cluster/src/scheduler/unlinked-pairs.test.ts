import { describe, expect, it } from 'vitest';
import { RELINK_FIRST_MS, RELINK_MAX_MS, UnlinkedPairs } from './unlinked-pairs.js';

describe('UnlinkedPairs', () => {
  it('a pair that failed goes through the scheduler for a while, then tries again', () => {
    const pairs = new UnlinkedPairs();
    expect(pairs.blocked('a', 'b', 0)).toBe(false);
    pairs.mark('a', 'b', 0);
    expect(pairs.blocked('a', 'b', RELINK_FIRST_MS - 1)).toBe(true);
    expect(pairs.blocked('b', 'a', 1)).toBe(false); // one way: b may still dial a
    expect(pairs.blocked('a', 'b', RELINK_FIRST_MS)).toBe(false);
  });

  it('the wait doubles at each failure, up to a minute', () => {
    const pairs = new UnlinkedPairs();
    let now = 0;
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      pairs.mark('a', 'b', now);
      let wait = 0;
      while (pairs.blocked('a', 'b', now + wait)) wait += 250;
      waits.push(wait);
      now += wait;
    }
    expect(waits.slice(0, 4)).toEqual([1000, 2000, 4000, 8000]);
    expect(Math.max(...waits)).toBe(RELINK_MAX_MS);
  });

  it('a thread gone is forgotten on both sides', () => {
    const pairs = new UnlinkedPairs();
    pairs.mark('a', 'b', 0);
    pairs.mark('b', 'c', 0);
    pairs.forget('b');
    expect(pairs.blocked('a', 'b', 1)).toBe(false);
    expect(pairs.blocked('b', 'c', 1)).toBe(false);
  });
});

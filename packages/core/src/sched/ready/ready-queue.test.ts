import { describe, expect, it } from 'vitest';
import { ReadyQueue } from './ready-queue.js';

describe('ReadyQueue', () => {
  it('is first in, first out across growth and wrap-around', () => {
    const q = new ReadyQueue<number>();
    let next = 0;
    let expected = 0;
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 3000; i++) q.push(next++);
      for (let i = 0; i < 2000; i++) expect(q.shift()).toBe(expected++);
    }
    expect(q.length).toBe(next - expected);
    expect([...q][0]).toBe(expected);
    while (q.length > 0) expect(q.shift()).toBe(expected++);
    expect(q.shift()).toBeUndefined();
  });

  it('pushRanked puts an entry ahead of lower ranks and behind equal ones, across wrap-around', () => {
    const q = new ReadyQueue<[string, number]>();
    const rank = (e: [string, number]) => e[1];
    for (let i = 0; i < 1020; i++) q.push(['filler', 0]);
    for (let i = 0; i < 1020; i++) q.shift(); // head and tail near the end of the ring
    for (const e of [
      ['a', 0],
      ['b', 2],
      ['c', 1],
      ['d', 2],
      ['e', 0],
      ['f', -1],
      ['g', 0],
    ] as [string, number][]) {
      q.pushRanked(e, rank);
    }
    expect(q.drain().map((e) => e[0])).toEqual(['b', 'd', 'c', 'a', 'e', 'g', 'f']);
  });
});

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
});

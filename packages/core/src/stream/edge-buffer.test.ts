import { describe, expect, it } from 'vitest';
import { Context, spawnStreaming, streamValues } from '../index.js';
import { EdgeBuffer, EMPTY } from './edge-buffer.js';

/** Lets pending promise callbacks run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('EdgeBuffer', () => {
  it('refuses a value when full and wakes the waiting producer once half is free, not per read', async () => {
    const edge = new EdgeBuffer(8);
    for (let i = 0; i < 8; i++) expect(edge.offer(i)).toBe(true);
    expect(edge.offer(8)).toBe(false);
    let woken = 0;
    void edge.room().then(() => woken++);
    const read: unknown[] = [];
    for (let i = 0; i < 3; i++) read.push(edge.poll());
    await settle();
    expect(woken).toBe(0); // 5 waiting: more than half
    read.push(edge.poll());
    await settle();
    expect(woken).toBe(1); // 4 waiting: half
    expect(read).toEqual([0, 1, 2, 3]);
    for (let i = 8; i < 12; i++) expect(edge.offer(i)).toBe(true);
    const rest: unknown[] = [];
    for (let v = edge.poll(); v !== EMPTY; v = edge.poll()) rest.push(v);
    expect(rest).toEqual([4, 5, 6, 7, 8, 9, 10, 11]); // in order, nothing lost
  });

  it('wakes the producer of a one-value buffer as soon as it is read', async () => {
    const edge = new EdgeBuffer(1);
    edge.offer('a');
    let woken = false;
    void edge.room().then(() => {
      woken = true;
    });
    expect(edge.poll()).toBe('a');
    await settle();
    expect(woken).toBe(true);
  });

  it('wakes a waiting producer when the consumer drops the edge or takes a batch', async () => {
    const dropped = new EdgeBuffer(4);
    for (let i = 0; i < 4; i++) dropped.offer(i);
    let a = false;
    void dropped.room().then(() => {
      a = true;
    });
    dropped.drop();
    const taken = new EdgeBuffer(4);
    for (let i = 0; i < 4; i++) taken.offer(i);
    let b = false;
    void taken.room().then(() => {
      b = true;
    });
    expect(taken.take(1)).toEqual([0]);
    await settle();
    expect([a, b]).toEqual([true, true]);
  });

  it('keeps values in order while its ring wraps around and grows, up to its capacity', () => {
    const edge = new EdgeBuffer(100);
    const out: unknown[] = [];
    let next = 0;
    // Uneven runs of offers and reads: the ring (16 slots at first) wraps before it grows, and
    // grows while wrapped; the last run fills the edge to its capacity.
    for (const [put, get] of [
      [10, 7],
      [12, 9],
      [40, 30],
      [90, 50],
    ] as const) {
      for (let i = 0; i < put; i++) expect(edge.offer(next++)).toBe(true);
      for (let i = 0; i < get; i++) out.push(edge.poll());
      out.push(...edge.take(2));
    }
    expect(edge.length).toBe(48);
    let taken = 0;
    while (edge.offer(next)) {
      next++;
      taken++;
    }
    expect(taken).toBe(52); // full at 100 values: the next one is refused
    for (let v = edge.poll(); v !== EMPTY; v = edge.poll()) out.push(v);
    expect(out).toEqual(Array.from({ length: next }, (_, i) => i));
  });
});

describe('backpressure that wakes at half', () => {
  it('runs a diamond with two-value buffers to its end, every value in order', async () => {
    // One producer feeding two branches that meet again: each branch's edge fills in turn while
    // the producer waits for the other; a producer woken only at half must still never stall.
    const ctx = new Context();
    const n = 2_000;
    const last = spawnStreaming(() => {
      const source = ctx.spawn({ streamMaxEvals: n, streamBufferSize: 2 }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const a = ctx.spawn({ streamBufferSize: 2 }, (v: number) => v * 2, source as never);
      const b = ctx.spawn({ streamBufferSize: 3 }, (v: number) => v + 1, source as never);
      return ctx.spawn({ streamBufferSize: 2 }, (x: number, y: number) => x + y, a, b);
    });
    const seen: number[] = [];
    for await (const v of streamValues<number>(last)) seen.push(v);
    expect(seen).toEqual(Array.from({ length: n }, (_, i) => 3 * i + 1));
    await ctx.close();
  });
});

import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { Context } from './context.js';
import { map } from './map-tasks.js';

/** A source that counts what was read and notes when it was closed. */
function counted(n: number) {
  const seen = { read: 0, closed: false };
  function* items() {
    try {
      for (let i = 0; i < n; i++) {
        seen.read++;
        yield i;
      }
    } finally {
      seen.closed = true;
    }
  }
  return { seen, items: items() };
}

describe("map's results: calls behave as an async generator's", () => {
  it('next() called many times without waiting gives every value once, in order, then done', async () => {
    const ctx = new Context();
    const it = map((x: number) => x * 3, [1, 2, 3, 4, 5], { context: ctx, batchSize: 2 });
    const all = await Promise.all(Array.from({ length: 7 }, () => it.next()));
    expect(all).toEqual([
      ...[3, 6, 9, 12, 15].map((value) => ({ value, done: false })),
      { value: undefined, done: true },
      { value: undefined, done: true },
    ]);
    await ctx.close();
  });

  it('return(value) before the first next() closes nothing and reads nothing', async () => {
    const ctx = new Context();
    const { seen, items } = counted(10);
    const it = map((x: number) => x, items, { context: ctx });
    expect(await it.return?.(7)).toEqual({ value: 7, done: true });
    expect(await it.next()).toEqual({ value: undefined, done: true });
    expect(seen).toEqual({ read: 0, closed: false });
    await ctx.close();
  });

  it('return() midway cancels the tasks in flight and closes the source; throw() rejects with its error', async () => {
    const ctx = new Context();
    const { seen, items } = counted(1_000);
    const it = map((x: number) => x, items, { context: ctx, batchSize: 4, concurrency: 8 });
    expect((await it.next()).value).toBe(0);
    expect(seen.read).toBeLessThanOrEqual(8);
    expect(await it.return?.()).toEqual({ value: undefined, done: true });
    expect(seen.closed).toBe(true);
    expect(await it.next()).toEqual({ value: undefined, done: true });

    const other = counted(1_000);
    const it2 = map((x: number) => x, other.items, { context: ctx, batchSize: 4 });
    await it2.next();
    const error = new Error('stop');
    await expect(it2.throw?.(error)).rejects.toBe(error);
    expect(other.seen.closed).toBe(true);
    expect(await it2.next()).toEqual({ value: undefined, done: true });
    await ctx.close();
  });

  it("a spawn error in a batch (a promise as an item) is thrown from next(): the batch's earlier tasks are cancelled, the source closed", async () => {
    const ctx = new Context();
    let ran = 0;
    const gate = new Promise<void>(() => {});
    function* items() {
      try {
        yield 1;
        yield 2;
        yield gate; // an `await` missing
        yield 4;
      } finally {
        closed = true;
      }
    }
    let closed = false;
    const it = map(
      (x: number) => {
        ran++;
        return x;
      },
      items(),
      { context: ctx, batchSize: 4 },
    );
    const error = await it.next().catch((e) => e);
    expect(error).toBeInstanceOf(ArgumentError);
    expect(error.message).toMatch(/argument 1 is a Promise/);
    expect(closed).toBe(true);
    await new Promise((r) => setTimeout(r, 10));
    expect(ran).toBe(0);
    expect(await it.next()).toEqual({ value: undefined, done: true });
    await ctx.close();
  });

  it('a failed item throws at its place after the values before it, in a batch of many', async () => {
    const ctx = new Context();
    const seen: number[] = [];
    const error = await (async () => {
      for await (const y of map(
        (x: number) => {
          if (x === 300) throw new Error('bad 300');
          return x;
        },
        Array.from({ length: 1_000 }, (_, i) => i),
        { context: ctx },
      ))
        seen.push(y);
    })().catch((e) => e);
    expect(error.cause.message).toBe('bad 300');
    expect(seen).toEqual(Array.from({ length: 300 }, (_, i) => i));
    await ctx.close();
  });
});

import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { Context } from './context.js';
import { map } from './map-tasks.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function collect<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe('map', () => {
  it('gives results in input order, whatever order the tasks finish in', async () => {
    const delays = [30, 1, 20, 0, 10, 5];
    const out = await collect(
      map(
        async (ms: number) => {
          await new Promise((r) => setTimeout(r, ms));
          return ms * 2;
        },
        delays,
        { concurrency: 3, batchSize: 2 },
      ),
    );
    expect(out).toEqual(delays.map((d) => d * 2));
  });

  it('reads an endless source lazily: never more than concurrency items ahead of the reader', async () => {
    let read = 0;
    function* naturals() {
      for (let i = 0; ; i++) {
        read++;
        yield i;
      }
    }
    let sum = 0;
    let n = 0;
    for await (const y of map((x: number) => x * x, naturals(), {
      concurrency: 100,
      batchSize: 10,
    })) {
      sum += y;
      if (++n === 1000) break;
      expect(read - n).toBeLessThanOrEqual(100);
    }
    expect(sum).toBe(Array.from({ length: 1000 }, (_, i) => i * i).reduce((a, b) => a + b, 0));
  });

  it('takes an async source, item by item by default', async () => {
    async function* ticks() {
      for (let i = 0; i < 5; i++) {
        await sleep(1);
        yield i;
      }
    }
    const first = map((x: number) => x + 1, ticks())[Symbol.asyncIterator]();
    expect((await first.next()).value).toBe(1); // not held back for a batch
    expect(await collect(first)).toEqual([2, 3, 4, 5]);
  });

  it('throws a failed item at its place, cancels the rest and closes the source', async () => {
    let closed = false;
    let started = 0;
    function* items() {
      try {
        for (let i = 0; ; i++) yield i;
      } finally {
        closed = true;
      }
    }
    const seen: number[] = [];
    const error = await (async () => {
      for await (const y of map(
        async (x: number) => {
          started++;
          if (x === 3) throw new Error(`bad item ${x}`);
          await new Promise((r) => setTimeout(r, x === 2 ? 5 : 1));
          return x;
        },
        items(),
        { concurrency: 8, batchSize: 4 },
      ))
        seen.push(y);
    })().catch((e) => e);
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect(error.cause.message).toBe('bad item 3');
    expect(seen).toEqual([0, 1, 2]);
    expect(closed).toBe(true);
    expect(started).toBeLessThanOrEqual(8);
  });

  it('passes task options on, and spawns into the context given', async () => {
    const failed = await collect(
      map(
        (x: number) => {
          throw new Error(`no ${x}`);
        },
        [1],
        { name: 'square' },
      ),
    ).catch((e) => e);
    expect(failed.message).toMatch(/Task 'square' .* failed/);
    const ctx = new Context();
    expect(await collect(map((x: number) => x + 1, [1, 2], { context: ctx }))).toEqual([2, 3]);
    await ctx.close();
    const closed = await collect(map((x: number) => x, [1], { context: ctx })).catch((e) => e);
    expect(closed.message).toMatch(/closed/);
  });

  it('refuses bad sources and options at the call', () => {
    expect(() => map(5 as never, [1])).toThrow(/map\(f, items, options\): f must be a function/);
    expect(() => map((x) => x, 3 as never)).toThrow(
      /items must be an iterable or an async iterable/,
    );
    expect(() => map((x) => x, [1], { batchSize: 0 })).toThrow(
      /batchSize must be a positive integer/,
    );
    expect(() => map((x) => x, [1], { concurrency: 1.5 })).toThrow(ArgumentError);
    expect(() => map((x) => x, [1], { context: {} as never })).toThrow(/context must be a Context/);
    expect(() => map((x) => x, [1], { nmae: 'x' } as never)).toThrow(
      /map\(f, items, options\): unknown option 'nmae'/,
    );
    // The message lists map's own options beside the task options.
    expect(() => map((x) => x, [1], { batchsize: 8 } as never)).toThrow(
      /map's own options: batchSize, concurrency, context; task options for every task: scope, /,
    );
  });
});

describe('map over several iterables (Dask: client.map(f, xs, ys))', () => {
  it('zips them into the arguments, sync and async alike, options last', async () => {
    const ctx = new Context();
    const out: number[] = [];
    for await (const y of map((x: number, y: number) => x * y, [1, 2, 3], [10, 20, 30], {
      context: ctx,
    }))
      out.push(y);
    expect(out).toEqual([10, 40, 90]);
    async function* letters() {
      yield* ['a', 'b'];
    }
    const mixed: string[] = [];
    for await (const s of map(
      (n: number, c: string, d: string) => `${n}${c}${d}`,
      new Set([1, 2]),
      letters(),
      ['x', 'y'],
      { context: ctx },
    ))
      mixed.push(s);
    expect(mixed).toEqual(['1ax', '2by']);
    await ctx.close();
  });

  it('unequal lengths are an ArgumentError: sized ones at the call, lazy ones when one ends', async () => {
    const ctx = new Context();
    expect(() => map((a: number, b: number) => a + b, [1, 2, 3], [1, 2], { context: ctx })).toThrow(
      /unequal lengths \(3 and 2\).*as Dask does/,
    );
    function* two() {
      yield* [1, 2];
    }
    const read = async () => {
      for await (const _ of map((a: number, b: number) => a + b, [1, 2, 3], two(), {
        context: ctx,
      }))
        void _;
    };
    await expect(read()).rejects.toThrow(ArgumentError);
    expect(() => map((a: number) => a, [1], 5 as never)).toThrow(/options must be an object/);
    expect(() => (map as (...a: unknown[]) => unknown)((a: number) => a, [1], 5, [2])).toThrow(
      /argument 3 must be another iterable/,
    );
    await ctx.close();
  });

  it('a two-parameter function over one iterable warns once, saying how to pass several arguments', async () => {
    const ctx = new Context();
    const seen: string[] = [];
    const listener = (w: Error & { code?: string }) => {
      if (w.code === 'DTASK_MAP_ARITY') seen.push(w.message);
    };
    process.on('warning', listener);
    try {
      const sub = (a: number, b: number) => a - b;
      for (let i = 0; i < 2; i++)
        for await (const _ of map(sub, [[2, 1]] as never, { context: ctx })) void _;
      await new Promise((r) => setTimeout(r, 10));
    } finally {
      process.off('warning', listener);
    }
    expect(seen).toHaveLength(1);
    expect(seen[0]).toMatch(
      /'sub' takes 2 parameters.*map\(f, xs, ys\).*map\(\(pair\) => f\(\.\.\.pair\), pairs\)/,
    );
    await ctx.close();
  });
});

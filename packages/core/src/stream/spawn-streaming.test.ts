import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  Context,
  disableLogging,
  enableLogging,
  fetchLogs,
  finishStream,
  spawnStreaming,
  streamValues,
  taskProcessor,
} from '../index.js';
import { CORE_DIST, runProgram } from '../task/__fixtures__/run-program.js';
import { streamingConformance } from '../testing/streaming-conformance.js';

streamingConformance('main thread', async () => ({ context: new Context(), pick: () => ({}) }), {
  describe,
  it,
});

describe('spawnStreaming on the main thread', () => {
  it('a reader skips the undefined of steps with nothing to emit; a consumer task takes every step', async () => {
    const ctx = new Context();
    const stepsSeen: unknown[] = [];
    const [evens, consumer] = spawnStreaming(() => {
      const n = ctx.spawn({ streamMaxEvals: 10 }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const evens = ctx.spawn((x: unknown) => ((x as number) % 2 === 0 ? x : undefined), n);
      const consumer = ctx.spawn((x: unknown) => {
        stepsSeen.push(x);
      }, evens);
      return [evens, consumer];
    });
    const read: unknown[] = [];
    for await (const v of streamValues(evens!)) read.push(v);
    await consumer;
    expect(read).toEqual([0, 2, 4, 6, 8]);
    expect(stepsSeen).toEqual([
      0,
      undefined,
      2,
      undefined,
      4,
      undefined,
      6,
      undefined,
      8,
      undefined,
    ]);
    await ctx.close();
  });

  it('starts no task until the region function returns', async () => {
    const ctx = new Context();
    const seen: number[] = [];
    const x = spawnStreaming(() => {
      const x = ctx.spawn({ streamMaxEvals: 3 }, () => {
        seen.push(seen.length);
        return seen.length;
      });
      expect(seen).toEqual([]);
      return x;
    });
    expect(await x).toBe(undefined);
    expect(seen).toEqual([0, 1, 2]);
    await ctx.close();
  });

  it('teardown: false lets the source run on after its consumer finished', async () => {
    const ctx = new Context();
    let steps = 0;
    const [x, a] = spawnStreaming(
      () => {
        const x = ctx.spawn({ streamMaxEvals: 50 }, () => ++steps);
        const a = ctx.spawn((v: number) => (v === 5 ? finishStream(v) : v), x);
        return [x, a];
      },
      { teardown: false },
    );
    await a;
    await x;
    expect(steps).toBe(50);
    await ctx.close();
  });

  it('streamValues: breaking out stops the task; misuse is an ArgumentError', async () => {
    const ctx = new Context();
    const x = spawnStreaming(() => ctx.spawn(() => 1));
    let n = 0;
    for await (const v of streamValues(x)) if (v === 1 && ++n === 5) break;
    expect(await x).toBe(undefined);
    expect(() => streamValues(ctx.spawn(() => 1))).toThrow(/not a streaming task/);
    expect(() => spawnStreaming(() => 1, { tear: 1 } as never)).toThrow(/unknown option 'tear'/);
    await ctx.close();
  });

  it('a region whose function throws starts nothing and fails its tasks', async () => {
    const ctx = new Context();
    let x: PromiseLike<unknown> | undefined;
    expect(() =>
      spawnStreaming(() => {
        x = ctx.spawn(() => 1);
        throw new TypeError('bad region');
      }),
    ).toThrow('bad region');
    await expect(Promise.resolve(x)).rejects.toThrow();
    await ctx.close();
  });

  it('logs a streaming task as one start and one end with its step count, not an event per step', async () => {
    const ctx = new Context();
    enableLogging();
    try {
      const x = spawnStreaming(() =>
        ctx.spawn({ name: 'counter', streamMaxEvals: 1000 }, () => Math.random()),
      );
      for await (const _ of streamValues(x)) {
      }
      await x;
      const mine = fetchLogs().filter((e) => e.task === x.id);
      expect(mine.map((e) => e.kind).sort()).toEqual(['finish', 'spawn', 'start', 'stream']);
      expect(mine.find((e) => e.kind === 'stream')?.detail).toBe('1000 steps');
    } finally {
      disableLogging();
      fetchLogs();
      await ctx.close();
    }
  });

  it('every step runs inside its task (taskProcessor() works after the loop has waited)', async () => {
    const ctx = new Context();
    const a = spawnStreaming(() => {
      const x = ctx.spawn({ streamMaxEvals: 5 }, async function* () {
        for (;;) {
          const here = taskProcessor().id;
          await new Promise((r) => setTimeout(r, 1));
          yield here;
        }
      });
      return ctx.spawn((v: string) => `${v} ${taskProcessor().id}`, x as never);
    });
    const got: unknown[] = [];
    for await (const v of streamValues(a)) got.push(v);
    expect(got).toEqual(Array(5).fill('thread:1:1 thread:1:1'));
    await ctx.close();
  });

  it('a step that throws leaves no task frame behind it', async () => {
    const ctx = new Context();
    // It throws after its loop has waited for values (not inside the call that started it).
    const a = spawnStreaming(() => {
      const x = ctx.spawn({ streamMaxEvals: 100 }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      return ctx.spawn((v: number) => {
        if (v === 5) throw new RangeError('no');
        return v;
      }, x as never);
    });
    expect(await a.then(undefined, (e: unknown) => (e as { cause?: Error }).cause?.name)).toBe(
      'RangeError',
    );
    expect(() => taskProcessor()).toThrow(/inside a task|outside/);
    await ctx.close();
  });

  it('steps run on buffered values keep order when a step now and then returns a promise or its consumer is full', async () => {
    const ctx = new Context();
    const sink = spawnStreaming(() => {
      const x = ctx.spawn({ streamMaxEvals: 5000 }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      // Every 7th step answers with a promise; a buffer of 3 makes this step wait for room.
      const y = ctx.spawn(
        { streamBufferSize: 3 },
        (v: number) => (v % 7 === 0 ? Promise.resolve(v * 2) : v * 2),
        x as never,
      );
      return ctx.spawn(
        (v: number) => (v === 2 * 4321 ? finishStream(v, { result: taskProcessor().id }) : v),
        y as never,
      );
    });
    const got: number[] = [];
    for await (const v of streamValues<number>(sink)) got.push(v);
    expect(got).toEqual(Array.from({ length: 4322 }, (_, i) => 2 * i));
    expect(await sink).toBe('thread:1:1');
    await ctx.close();
  });
});

describe('an async region function in a plain node program', () => {
  // Its promise would wait for the task and the task for the region: without the guard the
  // program ends with status 13 and no word.
  it.skipIf(!existsSync(CORE_DIST))(
    'that returns or reads its task gets ConcurrencyViolationError and goes on, rather than exiting 13',
    async () => {
      const script = `
        const { spawn, spawnStreaming, streamValues } = await import(${JSON.stringify(CORE_DIST.href)});
        try {
          await spawnStreaming(async () => spawn({ streamMaxEvals: 3 }, () => 1));
          console.log('RESOLVED');
        } catch (e) {
          console.log('CAUGHT ' + e.code);
        }
        try {
          await spawnStreaming(async () => {
            const t = spawn({ streamMaxEvals: 3 }, () => 1);
            for await (const v of streamValues(t)) console.log('READ ' + v);
            return [t];
          });
        } catch (e) {
          console.log('READING CAUGHT ' + e.code);
        }
        const [t] = await spawnStreaming(async () => [spawn({ streamMaxEvals: 3 }, () => 2)]);
        const values = [];
        for await (const v of streamValues(t)) values.push(v);
        console.log('VALUES ' + values.join(','));
        console.log('AFTER ' + (await spawn((x) => x + 1, 41)));`;
      const r = await runProgram(script);
      expect(r.out).toContain('CAUGHT DTASK_CONCURRENCY');
      expect(r.out).toContain('READING CAUGHT DTASK_CONCURRENCY');
      expect(r.out).toContain('VALUES 2,2,2');
      expect(r.out).toContain('AFTER 42');
      expect(r.code).toBe(0);
    },
    30_000,
  );
});

import assert from 'node:assert/strict';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import type { Context } from '../registry/context.js';
import type { finishStream } from '../stream/finish-stream.js';
import { spawnStreaming } from '../stream/spawn-streaming.js';
import { streamValues } from '../stream/stream-values.js';
import type { DTask } from '../task/dtask.js';
import { withOptions } from '../task/with-options.js';
import type { ConformanceRunner } from './storage-conformance.js';
import { type ConformanceSharing, type SharingRunner, suiteSetup } from './suite-setup.js';

/** What the factory of `streamingConformance` returns for each test. */
export interface StreamingSetup {
  /** The context the streaming tasks run in. */
  context: Context;
  /** Options for each spawned task, e.g. a scope chosen at random (as Dagger's tests do). */
  pick: () => object;
  /** Ends what the factory started; the suite closes `context` itself afterwards. */
  cleanup?: () => unknown;
}

type Spawn = (f: (...a: never[]) => unknown, ...args: unknown[]) => DTask<unknown>;

/** Reads every value of streaming task `t` on the caller. */
async function collect(t: DTask<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const v of streamValues(t)) out.push(v);
  return out;
}

function all(values: unknown[], test: (v: number) => boolean): boolean {
  return values.every((v) => typeof v === 'number' && test(v));
}

const add = (...xs: number[]): number => xs.reduce((s, x) => s + x, 0);
const keep = (x = 0): number => x;

/**
 * Dagger's `test/streaming.jl` cases (single task control flow, non-streaming inputs and
 * outputs, multiple tasks, max evals) plus teardown, backpressure, chained regions, async
 * generator sources and cancellation, registered under `describe(name)`. Each task's options
 * come from `pick`, so the same cases run on the main thread, threads and processes. Values at
 * a sink are read with `streamValues` instead of Dagger's accumulator, so functions travel.
 * With `options.share`, the tests share one context (see `ConformanceSharing`).
 */
export function streamingConformance(
  name: string,
  make: () => Promise<StreamingSetup>,
  runner: Pick<ConformanceRunner, 'describe' | 'it'> & SharingRunner,
  options: ConformanceSharing = {},
): void {
  const { describe, it } = runner;
  let withSetup: ReturnType<typeof suiteSetup<StreamingSetup>>;
  const test = (title: string, body: (spawn: Spawn, ctx: Context) => Promise<void>) =>
    it(title, () =>
      withSetup(({ context, pick }) => {
        const any = context.spawn.bind(context) as (...a: unknown[]) => DTask<unknown>;
        const spawn: Spawn = (f, ...args) => any(pick(), f, ...args);
        return body(spawn, context);
      }),
    );
  const ten = <R>(fn: () => R): R => withOptions({ streamMaxEvals: 10 }, fn);

  describe(`Streaming: ${name}`, () => {
    withSetup = suiteSetup(make, runner, options.share);
    test('single task without result: ten steps, await gives undefined', async (spawn) => {
      const x = ten(() => spawnStreaming(() => spawn(() => Math.random())));
      const values = await collect(x);
      assert.equal(await x, undefined);
      assert.equal(values.length, 10);
      assert.ok(all(values, (v) => v >= 0 && v < 1));
    });

    test('single task with result: finishStream(value, { result })', async (spawn) => {
      const x = withOptions({ streamMaxEvals: 1_000_000 }, () =>
        spawnStreaming(() =>
          spawn(() => {
            const v = Math.random();
            return v < 0.1 ? dtask.finishStream(v, { result: 123 }) : v;
          }),
        ),
      );
      const values = await collect(x);
      assert.equal(await x, 123);
      assert.ok((values.at(-1) as number) < 0.1);
    });

    test('a source yielding finishStream ends there: no step of it runs after', async (spawn) => {
      const x = spawnStreaming(() =>
        spawn(async function* () {
          for (let i = 1; i <= 5; i++) yield i;
          yield dtask.finishStream(6, { result: 'six' });
          throw new Error('the source ran past its finishStream');
        }),
      );
      assert.deepEqual(await collect(x), [1, 2, 3, 4, 5, 6]);
      assert.equal(await x, 'six');
    });

    test('a function* is a source as an async function* is: promises it yields are awaited, its return is the result, finishStream ends it', async (spawn) => {
      const [x, y] = spawnStreaming(() => [
        spawn(function* (n: number) {
          for (let i = 1; i <= n; i++) yield i % 2 === 0 ? Promise.resolve(i) : i;
          return 'done';
        }, 4),
        spawn(function* () {
          yield 1;
          yield dtask.finishStream(2, { result: 'two' });
          throw new Error('the source ran past its finishStream');
        }),
      ]);
      assert.deepEqual(await collect(x), [1, 2, 3, 4]);
      assert.equal(await x, 'done');
      assert.deepEqual(await collect(y), [1, 2]);
      assert.equal(await y, 'two');
    });

    test('an endless source stops on cancel; every await rejects', async (spawn) => {
      const [x, a] = spawnStreaming(() => {
        const x = spawn(async function* () {
          for (let i = 0; ; i++) yield i;
        });
        return [x, spawn((v: number) => v * 2, x)] as const;
      });
      const reader = streamValues(a)[Symbol.asyncIterator]();
      for (let i = 0; i < 20; i++) assert.equal((await reader.next()).value, 2 * i);
      a.cancel();
      for (const t of [x, a]) {
        const e = await t.then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(DTaskFailedError.isInstance(e), `task #${t.id} must fail`);
        assert.equal((e as { cause?: { code?: string } }).cause?.code, 'DTASK_CANCELLED');
      }
    });

    test('a task running forever stops on cancel; every await rejects', async (spawn) => {
      const [x, a] = spawnStreaming(() => {
        const x = spawn(() => Math.random());
        return [x, spawn((v: number) => v * 2, x)] as const;
      });
      const reader = streamValues(a)[Symbol.asyncIterator]();
      for (let i = 0; i < 20; i++) assert.equal((await reader.next()).done, false);
      x.cancel();
      for (const t of [x, a]) {
        const e = await t.then(
          () => undefined,
          (e: unknown) => e,
        );
        assert.ok(DTaskFailedError.isInstance(e), `task #${t.id} must fail`);
        assert.equal((e as { cause?: { code?: string } }).cause?.code, 'DTASK_CANCELLED');
      }
    });

    test('non-streaming inputs: () -> A, 42 -> A, (42, 43) -> A, finished task -> A', async (spawn) => {
      const c = spawn(() => 7);
      await c;
      const [a0, a1, a2, a3] = ten(() =>
        spawnStreaming(() => [spawn(keep), spawn(keep, 42), spawn(add, 42, 43), spawn(keep, c)]),
      );
      const got = await Promise.all([a0, a1, a2, a3].map((t) => collect(t as DTask<unknown>)));
      const expected = [0, 42, 85, 7];
      for (let i = 0; i < 4; i++) {
        assert.deepEqual(got[i], Array(10).fill(expected[i]));
        assert.equal(await (i === 0 ? a0 : i === 1 ? a1 : i === 2 ? a2 : a3), undefined);
      }
    });

    test('non-streaming outputs: x -> (A, B) outside the region each receive one value', async (spawn) => {
      const x = ten(() => spawnStreaming(() => spawn(() => Math.random())));
      const a = spawn((v: number) => [v], x);
      const b = spawn((v: number) => [v], x);
      assert.equal(await x, undefined);
      for (const t of [a, b]) {
        const got = (await t) as number[];
        assert.equal(got.length, 1);
        assert.ok(all(got, (v) => v >= 0 && v < 1));
      }
    });

    const shapes: [string, (s: Spawn) => DTask<unknown>[], (v: number) => boolean][] = [
      [
        'x -> A',
        (s) => [
          s(
            keep,
            s(() => Math.random()),
          ),
        ],
        (v) => v >= 0 && v < 1,
      ],
      [
        '(x, A)',
        (s) => {
          s(() => Math.random());
          return [s(keep, 1)];
        },
        (v) => v === 1,
      ],
      [
        'x -> y -> A',
        (s) => [
          s(
            keep,
            s(
              (v: number) => v + 1,
              s(() => Math.random()),
            ),
          ),
        ],
        (v) => v >= 1 && v < 2,
      ],
      [
        'x -> (y, A)',
        (s) => {
          const x = s(() => Math.random());
          s((v: number) => v + 1, x);
          return [s(keep, x)];
        },
        (v) => v >= 0 && v < 1,
      ],
      [
        '(x, y) -> A',
        (s) => [
          s(
            add,
            s(() => Math.random()),
            s(() => Math.random()),
          ),
        ],
        (v) => v >= 0 && v < 2,
      ],
      [
        '(x, y) -> z -> A',
        (s) => [
          s(
            keep,
            s(
              add,
              s(() => Math.random()),
              s(() => Math.random()),
            ),
          ),
        ],
        (v) => v >= 0 && v < 2,
      ],
      [
        'x -> (y, z) -> A',
        (s) => {
          const x = s(() => Math.random());
          return [
            s(
              add,
              s((v: number) => v + 1, x),
              s((v: number) => v + 2, x),
            ),
          ];
        },
        (v) => v >= 3 && v < 5,
      ],
      [
        '(x, y) -> z -> (A, B)',
        (s) => {
          const z = s(
            add,
            s(() => Math.random()),
            s(() => Math.random()),
          );
          return [s(keep, z), s(keep, z)];
        },
        (v) => v >= 0 && v < 2,
      ],
    ];
    for (const [title, build, range] of shapes) {
      test(`multiple tasks: ${title}, ten values at each sink`, async (spawn) => {
        const sinks = ten(() => spawnStreaming(() => build(spawn)));
        const got = await Promise.all(sinks.map(collect));
        for (const t of sinks) assert.equal(await t, undefined);
        for (const values of got) {
          assert.equal(values.length, 10);
          assert.ok(all(values, range), `values out of range: ${values}`);
        }
      });
    }

    test("(x, y) -> A with x ending first: A goes on with x's last value until y has ended too", async (spawn) => {
      const upTo = async function* (from: number, to: number) {
        for (let i = from; i <= to; i++) yield i;
      };
      const [a, b, c] = spawnStreaming(() => {
        const x = spawn(upTo, 1, 3);
        const y = spawn(upTo, 10, 15);
        const none = spawn(upTo, 1, 0);
        const pair = (p: number, q: number) => [p, q];
        return [spawn(pair, x, y), spawn(pair, y, x), spawn(pair, none, y)];
      });
      const [va, vb, vc] = await Promise.all([collect(a), collect(b), collect(c)]);
      const ys = [10, 11, 12, 13, 14, 15];
      const xs = [1, 2, 3, 3, 3, 3];
      assert.deepEqual(
        va,
        ys.map((q, i) => [xs[i], q]),
      );
      assert.deepEqual(
        vb,
        ys.map((q, i) => [q, xs[i]]),
      );
      assert.deepEqual(
        vc,
        ys.map((q) => [undefined, q]),
      );
      for (const t of [a, b, c]) assert.equal(await t, undefined);
    });

    test('max evals: 0 is an ArgumentError, 1 and 100 are obeyed', async (spawn) => {
      assert.throws(
        () => withOptions({ streamMaxEvals: 0 }, () => spawnStreaming(() => spawn(keep))),
        (e: { code?: string }) => e.code === 'DTASK_ARGUMENT',
      );
      for (const n of [1, 100]) {
        const a = withOptions({ streamMaxEvals: n }, () => spawnStreaming(() => spawn(keep, n)));
        assert.equal((await collect(a)).length, n);
      }
    });

    test('backpressure: a buffer of 4 between a fast source and a slow sink loses nothing', async (spawn) => {
      const [src, sink] = withOptions({ streamBufferSize: 4 }, () =>
        spawnStreaming(() => {
          const src = spawn(async function* () {
            for (let i = 1; i <= 500; i++) yield i;
            return 'source done';
          });
          const sink = spawn(async (v: number) => {
            if (v % 50 === 0) await new Promise((r) => setTimeout(r, 1));
            return v;
          }, src);
          return [src, sink];
        }),
      );
      const values = (await collect(sink)) as number[];
      assert.equal(await src, 'source done');
      assert.equal(values.length, 500);
      assert.equal(add(...values), (500 * 501) / 2);
      assert.deepEqual(values.slice(0, 3), [1, 2, 3]);
    });

    test('teardown: once the sink finishes, an endless source stops', async (spawn) => {
      const [x, a] = spawnStreaming(() => {
        const x = spawn(() => Math.random());
        const a = spawn((v: number) => (v < 0.05 ? dtask.finishStream(v, { result: 'a' }) : v), x);
        return [x, a];
      });
      assert.equal(await a, 'a');
      assert.equal(await x, undefined);
    });

    test('chained regions: a later region reads an earlier task from its first value', async (spawn) => {
      const x = spawnStreaming(() =>
        spawn(async function* () {
          for (let i = 0; i < 100; i++) yield i;
        }),
      );
      const y = spawnStreaming(() => spawn((v: number) => v * 2, x));
      const values = (await collect(y)) as number[];
      assert.deepEqual(
        values,
        Array.from({ length: 100 }, (_, i) => i * 2),
      );
    });

    test('a step that throws fails its task and stops the DAG', async (spawn) => {
      const [x, a] = spawnStreaming(() => {
        const x = spawn(() => Math.random());
        const a = spawn((v: number) => {
          if (v < 0.1) throw new RangeError('too small');
          return v;
        }, x);
        return [x, a];
      });
      const ea = await a.then(undefined, (e: unknown) => e);
      assert.equal((ea as { cause?: Error }).cause?.name, 'RangeError');
      const ex = await x.then(undefined, (e: unknown) => e);
      assert.equal((ex as { cause?: { code?: string } }).cause?.code, 'DTASK_CANCELLED');
    });

    test('a source that throws fails its task and stops the DAG; a reader ends with the failure', async (spawn) => {
      const [x, a] = spawnStreaming(() => {
        const x = spawn(async function* () {
          for (let i = 0; i < 3; i++) yield i;
          throw new RangeError('source broke');
        });
        return [x, spawn((v: number) => v * 10, x as never)];
      });
      const seen: number[] = [];
      const read = async () => {
        for await (const v of streamValues<number>(a)) seen.push(v);
      };
      const er = await read().then(undefined, (e: unknown) => e);
      assert.ok(er instanceof Error, 'the reader ends with an error');
      assert.deepEqual(seen, [0, 10, 20].slice(0, seen.length), 'what it read came in order');
      const ex = await x.then(undefined, (e: unknown) => e);
      assert.equal((ex as { cause?: Error }).cause?.message, 'source broke');
      const ea = await a.then(undefined, (e: unknown) => e);
      assert.equal((ea as { cause?: { code?: string } }).cause?.code, 'DTASK_CANCELLED');
    });

    test('an async region function that returns or awaits its own task gets ConcurrencyViolationError, not a hang', async (spawn) => {
      const codeOf = (e: unknown) => (e as { code?: string }).code;
      // Returned: the async function's promise would wait for the task, which waits for it.
      let returned: DTask<unknown> | undefined;
      const e1 = await spawnStreaming(async () => {
        returned = spawn(() => 1);
        return returned;
      }).then(undefined, (e: unknown) => e);
      assert.equal(codeOf(e1), 'DTASK_CONCURRENCY');
      assert.match(String((e1 as Error).message), /return \[last\]/);
      const t1 = await (returned as DTask<unknown>).then(undefined, (e: unknown) => e);
      assert.equal((t1 as { cause?: { code?: string } }).cause?.code, 'DTASK_CANCELLED');
      // Awaited inside: the await throws, and the function may go on.
      let inside: unknown;
      const [x] = await spawnStreaming(async () => {
        const x = spawn(async function* () {
          yield* [1, 2, 3];
        });
        try {
          await x;
        } catch (e) {
          inside = e;
        }
        return [x];
      });
      assert.equal(codeOf(inside), 'DTASK_CONCURRENCY');
      // Returned in an array: the region starts once the promise settles; every value arrives.
      assert.deepEqual(await collect(x as DTask<unknown>), [1, 2, 3]);
      // Read inside: the loop throws before it takes the values, which stay for a later reader.
      let read: unknown;
      const [y] = await spawnStreaming(async () => {
        const y = spawn(async function* () {
          yield* [4, 5];
        });
        read = await collect(y).then(undefined, (e: unknown) => e);
        return [y];
      });
      assert.equal(codeOf(read), 'DTASK_CONCURRENCY');
      assert.deepEqual(await collect(y as DTask<unknown>), [4, 5]);
    });

    test('a plain region function may start a reader of its task and attach a callback', async (spawn) => {
      // Neither blocks the function, and its region starts once it returns.
      let reading: Promise<unknown[]> | undefined;
      let called = false;
      const z = spawnStreaming(() => {
        const z = spawn(async function* () {
          yield* [7, 8];
        });
        reading = collect(z);
        z.then(() => {
          called = true;
        });
        return z;
      });
      assert.deepEqual(await reading, [7, 8]);
      await z;
      assert.equal(called, true);
    });
  });
}

declare const dtask: { finishStream: typeof finishStream };

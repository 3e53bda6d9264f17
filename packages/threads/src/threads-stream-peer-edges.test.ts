// Streaming edges between tasks on two worker threads go thread to thread (over the link the
// two runtimes have), not through the main thread: in order, with backpressure, teardown,
// cancellation, and a thread lost under either end failing the DAG with WorkerLostError.
import { existsSync } from 'node:fs';
import { type Context, type DTask, scope, spawnStreaming, streamValues } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { sharedInts, sharedRig, until } from './__fixtures__/harness.js';
import { runNode } from './__fixtures__/run-node.js';

const LOSS = new URL('./__fixtures__/stream-peer-loss-main.mjs', import.meta.url).pathname;
const built = existsSync(new URL('../dist/index.js', import.meta.url));
if (!built) console.warn('thread-loss tests skipped: they run a node program on the built dist');

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

/** `ctx.spawn` without its argument types: streaming-task arguments stand for their values. */
const spawnOn = (ctx: Context) =>
  ctx.spawn.bind(ctx) as unknown as (...a: unknown[]) => DTask<unknown>;

/** Counts each value in `seen[0]` and passes it on. */
const countIn = (v: number, seen: Int32Array) => {
  Atomics.add(seen, 0, 1);
  return v;
};

function runLoss(lose: 'producer' | 'consumer') {
  return runNode([LOSS, lose], 90_000);
}

describe('streaming edges between two worker threads', () => {
  // One context with two threads for the tests run here (each looks only at its own streams,
  // which end or are cancelled before it returns; the ones after a failure or a cancel also
  // check that the threads keep serving): about 0.2 s of CPU a test to start. The tests that
  // lose a thread run programs of their own.
  const shared = sharedRig();
  it('a slow step whose input is always buffered still sends its values out as it makes them', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const n = 300;
    const slow = spawnStreaming(() => {
      const source = spawn({ ...onThread(2), streamMaxEvals: n }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      // 8 ms a step (holding the thread): the 300 steps take 2.4 s, their input buffered all along.
      return spawn(
        onThread(3),
        (v: number) => {
          Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 8);
          return v;
        },
        source,
      );
    });
    const at: number[] = [];
    const got: number[] = [];
    for await (const v of streamValues<number>(slow)) {
      got.push(v);
      at.push(Date.now());
    }
    expect(got).toEqual(Array.from({ length: n }, (_, i) => i));
    // Values held back until many steps had run would all arrive near the end.
    expect((at[n - 1] as number) - (at[0] as number)).toBeGreaterThan(1_200);
  });

  it('numbers of every kind cross in batches exactly (-0, NaN, fractions, huge), to a thread and to the main thread', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const kinds = [-0, Number.NaN, 0.1, -1e300, 2 ** 53 + 2, Number.NEGATIVE_INFINITY, 3];
    const n = 5_000;
    const last = spawnStreaming(() => {
      const source = spawn(
        { ...onThread(2), streamMaxEvals: n },
        (k: number[]) => {
          const g = globalThis as { packStep?: number };
          g.packStep = (g.packStep ?? -1) + 1;
          return k[g.packStep % k.length];
        },
        kinds,
      );
      const same = spawn(onThread(3), (v: number) => v, source);
      return spawn(onThread(3), (v: number) => v, same);
    });
    const got: number[] = [];
    for await (const v of streamValues<number>(last)) got.push(v);
    expect(got.length).toBe(n);
    for (let i = 0; i < n; i++) {
      if (!Object.is(got[i], kinds[i % kinds.length])) {
        expect([i, got[i]]).toEqual([i, kinds[i % kinds.length]]);
      }
    }
  });

  it('values flow from thread 2 to thread 3 while the main thread is blocked, in order', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const seen = sharedInts(1);
    const n = 200_000;
    const counted = spawnStreaming(() => {
      const source = spawn(
        { ...onThread(2), streamMaxEvals: n, streamBufferSize: 64 },
        async function* () {
          for (let i = 0; ; i++) yield i;
        },
      );
      const middle = spawn({ ...onThread(3), streamBufferSize: 64 }, countIn, source, seen);
      // The last values wait for a reader on the main thread: room for all of them.
      return spawn({ ...onThread(2), streamBufferSize: n }, (v: number) => v, middle);
    });
    await until(() => Atomics.load(seen, 0) > 2_000, 30_000, 'values at thread 3');
    // Through the main thread, no more than the edge's 64 values and a batch of 64 could
    // arrive at thread 3 while it is blocked.
    const before = Atomics.load(seen, 0);
    // The main thread blocked (its event loop does not turn), looking every millisecond, until
    // 20,000 more values have reached thread 3 or 60 s have passed: however long a loaded
    // machine leaves the threads waiting, values that needed this thread stop after 128.
    const end = Date.now() + 60_000;
    const nap = new Int32Array(new SharedArrayBuffer(4));
    while (Date.now() < end && Atomics.load(seen, 0) - before < 20_000) Atomics.wait(nap, 0, 0, 1);
    const during = Atomics.load(seen, 0) - before;
    let next = 0;
    let inOrder = true;
    for await (const v of streamValues(counted)) if (v !== next++) inOrder = false;
    expect(during).toBeGreaterThan(5_000);
    expect(inOrder).toBe(true);
    expect(next).toBe(n);
    expect(await counted).toBe(undefined);
  }, 120_000);

  it('backpressure: a fast producer on one thread waits for a slow consumer on the other; nothing is lost', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const made = sharedInts(1);
    const n = 400;
    const [source, slow] = spawnStreaming(() => {
      const source = spawn(
        { ...onThread(2), streamMaxEvals: n, streamBufferSize: 8 },
        (m: Int32Array) => Atomics.add(m, 0, 1),
        made,
      );
      const slow = spawn(
        { ...onThread(3), streamBufferSize: 8 },
        async (v: number, m: Int32Array) => {
          await new Promise((r) => setTimeout(r, 1));
          // Made but not yet read here.
          return Atomics.load(m, 0) - v - 1;
        },
        source,
        made,
      );
      return [source, slow];
    });
    const ahead: number[] = [];
    for await (const a of streamValues(slow)) ahead.push(a as number);
    expect(ahead.length).toBe(n);
    expect(ahead.every((a, i) => a >= 0 && a <= n - i - 1)).toBe(true);
    // Held back by a few buffers of 8, not 400 ahead: through the main thread the edge (8), a
    // batch taken (8), and on the producer's side an exchange being filled and two in flight,
    // each of two buffers' worth (3 × 16); while the edge moves to the direct link, also what
    // that link lets be unread (2 × 8) and a batch not yet flushed (8): 88, plus steps under way.
    expect(Math.max(...ahead)).toBeLessThanOrEqual(96);
    expect(await source).toBe(undefined);
  }, 60_000);

  it('teardown: a consumer on thread 3 that finishes stops its endless producer on thread 2', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const [source, sink] = spawnStreaming(() => {
      const source = spawn(onThread(2), async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const sink = spawn(
        onThread(3),
        (v: number) => (v === 500 ? dtask.finishStream(v, { result: 'sink' }) : v),
        source,
      );
      return [source, sink];
    });
    expect(await sink).toBe('sink');
    expect(await source).toBe(undefined);
  }, 60_000);

  it('cancel: cancelling the consumer stops both threads’ tasks; each await rejects; the threads keep serving', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const seen = sharedInts(1);
    const [source, sink] = spawnStreaming(() => {
      const source = spawn(onThread(2), async function* () {
        for (let i = 0; ; i++) yield i;
      });
      return [source, spawn(onThread(3), countIn, source, seen)];
    });
    let read = 0;
    for await (const _ of streamValues(sink)) if (++read === 3000) break;
    sink.cancel();
    for (const t of [source, sink]) {
      const e = await Promise.resolve(t).then(
        () => 'resolved',
        (error: { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code,
      );
      expect(['DTASK_CANCELLED', 'resolved']).toContain(e);
    }
    // A step under way when the cancel came may still count; none after it.
    await new Promise((r) => setTimeout(r, 200));
    const stopped = Atomics.load(seen, 0);
    await new Promise((r) => setTimeout(r, 300));
    expect(Atomics.load(seen, 0)).toBe(stopped);
    for (const t of [2, 3]) expect(await ctx.spawn(onThread(t), () => 'serving')).toBe('serving');
  }, 60_000);

  it('a value that cannot be copied to the consumer’s thread fails the DAG with UnsupportedError naming the producer', async () => {
    const { ctx } = shared();
    const spawn = spawnOn(ctx);
    const [source, sink] = spawnStreaming(() => {
      const source = spawn({ ...onThread(2), streamMaxEvals: 100_000 }, async function* () {
        for (let i = 0; ; i++) yield i === 50_000 ? () => i : i;
      });
      return [source, spawn(onThread(3), (v: unknown) => v, source)];
    });
    const read = await (async () => {
      try {
        for await (const _ of streamValues(sink));
        return 'ended';
      } catch (e) {
        return (e as { code?: string }).code;
      }
    })();
    expect(read).toBe('DTASK_CANCELLED');
    const e = (await Promise.resolve(sink).then(
      () => undefined,
      (e: unknown) => e,
    )) as { cause?: { code?: string; message?: string } };
    expect(e?.cause?.code).toBe('DTASK_UNSUPPORTED');
    expect(e?.cause?.message).toMatch(
      new RegExp(`streaming task #${source.id}\\b.*cannot be copied`),
    );
    expect(await ctx.spawn(onThread(3), () => 'serving')).toBe('serving');
  }, 60_000);

  // Two programs of their own, each waiting only on its own threads: side by side.
  for (const lose of ['producer', 'consumer'] as const) {
    (built ? it.concurrent : it.skip)(
      `the ${lose}'s thread lost while values flow between threads fails the DAG (WorkerLostError naming a task); the rest keeps serving`,
      async ({ expect }) => {
        const { code, stdout, stderr } = await runLoss(lose);
        const said = `exit ${code}\n${stdout}\n${stderr}`;
        expect(code, said).toBe(0);
        expect(stderr, said).not.toMatch(/Unhandled/);
        const lines = stdout.trim().split('\n');
        expect(lines[0], said).toBe('values enough');
        for (const [i, name] of [
          [1, 'source'],
          [2, 'double'],
        ] as const) {
          expect([`${name} lost, named true`, `${name} DTASK_CANCELLED`], said).toContain(lines[i]);
        }
        expect(lines.slice(3), said).toEqual([
          'a task lost: true',
          'sink DTASK_CANCELLED',
          'reader DTASK_CANCELLED',
          'after 42',
          'done',
        ]);
      },
      120_000,
    );
  }
});

declare const dtask: { finishStream(value: unknown, options: { result: unknown }): unknown };

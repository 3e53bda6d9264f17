// Streaming edges between two tasks on the same worker thread stay on that thread: values pass
// there by reference (no copy through the main thread), in order, with backpressure, teardown
// and cancellation as on any edge.
import { existsSync } from 'node:fs';
import { Context, type DTask, scope, spawnStreaming, streamValues } from '@dtask/core';
import { streamingConformance } from '@dtask/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';
import { runNode } from './__fixtures__/run-node.js';
import { threads } from './index.js';

const LOSS = new URL('./__fixtures__/stream-local-loss-main.mjs', import.meta.url).pathname;
const built = existsSync(new URL('../dist/index.js', import.meta.url));
if (!built)
  console.warn('thread-loss test skipped: it runs a node program on the built dist (build first)');

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

streamingConformance(
  'threads({ count: 2 }), every task on the same worker thread',
  async () => {
    // One context serves every case (the kit closes it after them).
    const context = new Context({ plugins: [threads({ count: 2 })] });
    await context.ready();
    return { context, pick: () => onThread(2) };
  },
  { describe, it, afterAll },
  { share: true },
);

/** `ctx.spawn` without its argument types: streaming-task arguments stand for their values. */
const spawnOn = (ctx: Context) =>
  ctx.spawn.bind(ctx) as unknown as (...a: unknown[]) => DTask<unknown>;

async function collect(t: PromiseLike<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const v of streamValues(t)) out.push(v);
  return out;
}

// A value that a copy between threads would change: its getter lives on its class's prototype.
function box(v: number) {
  class Box {
    constructor(readonly v: number) {}
    get twice() {
      return this.v * 2;
    }
  }
  return new Box(v);
}
/** `b.twice` when `b` came by reference; a copy keeps only `v`, and says so. */
const unbox = (b: { v: number; twice?: number }) => b.twice ?? { copied: b.v * 2 };

describe('streaming edges inside a worker thread', () => {
  // Values the producer made before its consumer started reading there went through the
  // scheduler's thread (copied): how many depends on when the consumer's run arrives, so only
  // a first few may come that way; the edge's buffers bound them far below `n`.
  it('a consumer on its producer thread gets each value by reference, in order, through a small buffer', async () => {
    const { ctx } = await rig();
    const spawn = spawnOn(ctx);
    const n = 2000;
    const [source, boxed, out] = spawnStreaming(() => {
      const source = spawn({ ...onThread(2), streamMaxEvals: n }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const boxed = spawn({ ...onThread(3), streamBufferSize: 8 }, box, source);
      const out = spawn({ ...onThread(3), streamBufferSize: 8 }, unbox, boxed);
      return [source, boxed, out];
    });
    const got = await collect(out);
    const copied = got.findIndex((v) => typeof v === 'number');
    expect(copied).toBeGreaterThanOrEqual(0);
    expect(copied).toBeLessThan(n / 2);
    const want = Array.from({ length: n }, (_, i) => (i < copied ? { copied: i * 2 } : i * 2));
    expect(got).toEqual(want);
    for (const t of [source, boxed, out]) expect(await t).toBe(undefined);
  });

  it('a producer with consumers on its thread and on another gives both every value', async () => {
    const { ctx } = await rig();
    const spawn = spawnOn(ctx);
    const n = 500;
    const [here, there] = spawnStreaming(() => {
      const source = spawn({ ...onThread(3), streamMaxEvals: n }, async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const doubled = spawn(onThread(3), (v: number) => v * 2, source);
      return [
        spawn(onThread(3), (v: number) => v + 1, doubled),
        spawn(onThread(2), (v: number) => v + 1, doubled),
      ];
    });
    const [a, b] = await Promise.all([collect(here), collect(there)]);
    const want = Array.from({ length: n }, (_, i) => i * 2 + 1);
    expect(a).toEqual(want);
    expect(b).toEqual(want);
  });

  it('teardown: a consumer that finishes stops its endless producer on the same thread', async () => {
    const { ctx } = await rig();
    const spawn = spawnOn(ctx);
    const [source, sink] = spawnStreaming(() => {
      const source = spawn(onThread(2), async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const sink = spawn(
        onThread(2),
        (v: number) => (v === 500 ? dtask.finishStream(v, { result: 'sink' }) : v),
        source,
      );
      return [source, sink];
    });
    expect(await sink).toBe('sink');
    expect(await source).toBe(undefined);
  });

  it('cancel: cancelling the consumer stops both tasks on the thread; each await rejects', async () => {
    const { ctx } = await rig();
    const spawn = spawnOn(ctx);
    const [source, sink] = spawnStreaming(() => {
      const source = spawn(onThread(3), async function* () {
        for (let i = 0; ; i++) yield i;
      });
      const sink = spawn(onThread(3), (v: number) => v, source);
      return [source, sink];
    });
    let seen = 0;
    for await (const _ of streamValues(sink)) if (++seen === 3000) break;
    sink.cancel();
    for (const t of [source, sink]) {
      const e = await Promise.resolve(t).then(
        () => 'resolved',
        (error: { cause?: { code?: string }; code?: string }) => error.cause?.code ?? error.code,
      );
      expect(['DTASK_CANCELLED', 'resolved']).toContain(e);
    }
    expect(await ctx.spawn(onThread(3), () => 'still serving')).toBe('still serving');
  });

  it.skipIf(!built)(
    'a thread lost under two tasks joined by a local edge fails the DAG (WorkerLostError naming a task); the rest keeps serving',
    async () => {
      const { code, stdout, stderr } = await runNode([LOSS], 90_000);
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
});

declare const dtask: { finishStream(value: unknown, options: { result: unknown }): unknown };

import { describe, expect, it } from 'vitest';
import { Context, ThreadProc } from '../../../index.js';
import type { Plugin } from '../../../plugin.js';
import { inMemoryTransportPair } from '../../../protocol/in-memory-transport.js';
import { forEachRun } from '../../../protocol/packs.js';
import { RUN, RUNS, type RunPack } from '../../../protocol/protocol.js';
import type { Transport } from '../../../protocol/transport.js';
import { startWorkerRuntime } from '../../../runtime/worker-runtime.js';
import { ExactScope } from '../../../scope/exact-scope.js';

/** A context with one in-memory worker runtime; `batches` records what each send carried. */
function oneWorker() {
  const batches: unknown[][] = [];
  const proc = new ThreadProc(1, 2);
  const plugin: Plugin = {
    name: 'one-in-memory-worker',
    setup(host) {
      const [mainEnd, workerEnd] = inMemoryTransportPair();
      startWorkerRuntime(workerEnd, { worker: 1, thread: 2 });
      const recording: Transport = {
        send(message, transfer) {
          batches.push(message as unknown[]);
          mainEnd.send(message, transfer);
        },
        onMessage: (handler) => mainEnd.onMessage(handler),
        onClose: (handler) => mainEnd.onClose(handler),
        close: () => mainEnd.close(),
      };
      host.addProcessor(proc, host.connectWorker(recording, { processor: proc }));
    },
  };
  const ctx = new Context({ plugins: [plugin] });
  return { ctx, batches, scope: new ExactScope(proc) };
}

/** Tasks sent in a batch, as records or in packs (scoped tasks travel packed: no options). */
const runs = (batch: unknown[]) => {
  let n = 0;
  for (const m of batch) {
    if (!Array.isArray(m)) continue;
    if (m[0] === RUN) n++;
    else if (m[0] === RUNS) forEachRun(m as RunPack, () => n++);
  }
  return n;
};

describe('WorkerConnection: arguments that cannot travel', () => {
  it('fail their task with an ArgumentError naming the argument and the fix; the rest run', async () => {
    const { ctx, scope } = oneWorker();
    await ctx.ready();
    const bad = ctx.spawn(
      { scope },
      (x: number, f: unknown) => x + String(f),
      1,
      () => 2,
    );
    const good = ctx.spawn({ scope }, (x: number) => x + 1, 1);
    const error: any = await bad.catch((e: unknown) => e);
    expect(error.code).toBe('DTASK_FAILED');
    expect(error.cause.code).toBe('DTASK_ARGUMENT');
    expect(error.cause.message).toMatch(
      /Argument 1 of task #\d+ \(function .*\) cannot be copied to thread:1:2/,
    );
    expect(error.cause.message).toMatch(/everywhere\(\)/);
    expect(await good).toBe(2);
    await ctx.close();
  });
});

describe('WorkerConnection: a DTask or Chunk nested inside an argument', () => {
  it('fails its task with an ArgumentError saying it is not a dependency and what to pass', async () => {
    const { ctx, scope } = oneWorker();
    await ctx.ready();
    const upstream = ctx.spawn({ name: 'g' }, () => 2);
    const chunk = ctx.toChunk(3);
    const nested = ctx.spawn({ scope }, (xs: unknown[]) => xs.length, [upstream] as never);
    const deep = ctx.spawn({ scope }, (o: unknown) => typeof o, { a: [1, { c: chunk }] } as never);
    const error: any = await nested.catch((e: unknown) => e);
    expect(error.cause.code).toBe('DTASK_ARGUMENT');
    expect(error.cause.message).toMatch(
      new RegExp(
        `Argument 0 of task #\\d+ \\(an array of length 1\\) holds a DTask \\(task #${upstream.id}\\) at \\[0\\]`,
      ),
    );
    expect(error.cause.message).toMatch(/not a dependency/);
    expect(error.cause.message).toMatch(/pass it as an argument of its own/);
    const deepError: any = await deep.catch((e: unknown) => e);
    expect(deepError.cause.message).toMatch(/holds a Chunk at \.a\[1\]\.c/);
    // As an argument of its own it is a dependency: the task receives its value.
    expect(await ctx.spawn({ scope }, (...xs: number[]) => xs, upstream, chunk)).toEqual([2, 3]);
    await ctx.close();
  });
});

describe('WorkerConnection batching', () => {
  it('an idle worker gets the first task of a burst at once, the rest in one batch', async () => {
    const { ctx, batches, scope } = oneWorker();
    await ctx.ready();
    batches.length = 0;
    const tasks = Array.from({ length: 50 }, (_, i) => ctx.spawn({ scope }, (x: number) => x, i));
    expect(await Promise.all(tasks)).toEqual(tasks.map((_, i) => i));
    const sent = batches.map(runs).filter((n) => n > 0);
    expect(sent[0]).toBe(1);
    expect(sent[1]).toBe(49);
    await ctx.close();
  });
});

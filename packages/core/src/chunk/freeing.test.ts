import { describe, expect, it } from 'vitest';
import { Context, ExactScope, RamDevice, schHandle, ThreadProc, toChunk } from '../index.js';
import type { Plugin } from '../plugin.js';
import { inMemoryTransportPair } from '../protocol/in-memory-transport.js';
import { startWorkerRuntime, type WorkerRuntime } from '../runtime/worker-runtime.js';
import { collectUntil } from '../testing/collect-until.js';

const gc = (globalThis as { gc?: () => void }).gc;

/** A context with one worker runtime over an in-memory transport, as processor `thread:1:2`. */
function oneWorker() {
  const proc = new ThreadProc(1, 2);
  const [a, b] = inMemoryTransportPair();
  const runtime: WorkerRuntime = startWorkerRuntime(b, { worker: 1, thread: 2 });
  const plugin: Plugin = {
    name: 'one-worker',
    setup(host) {
      host.addProcessor(proc, host.connectWorker(a, { processor: proc }));
    },
  };
  return { ctx: new Context({ plugins: [plugin] }), proc, runtime };
}

if (!gc)
  console.warn('freeing tests skipped: they need node --expose-gc (vitest.config.ts passes it)');

describe.runIf(gc)('freeing data nothing references', () => {
  it('a chunk made by toChunk is deleted from its device once its handle is gone', async () => {
    const ctx = new Context();
    const device = new RamDevice();
    ctx.addStorageDevice(device);
    await (async () => {
      const chunk = await toChunk(new Float64Array(10_000), undefined, undefined, { device });
      expect(device.usage().entries).toBe(1);
      expect((await chunk.fetch()).length).toBe(10_000);
    })();
    expect(await collectUntil(() => device.usage().entries === 0)).toBe(true);
    await ctx.close();
  });

  it('a result kept on a worker is released there once its DTask is gone', async () => {
    const { ctx, proc, runtime } = oneWorker();
    await (async () => {
      const t = ctx.spawn({ scope: new ExactScope(proc) }, () => new Float64Array(5000).fill(1));
      await t.wait();
      expect(runtime.store.size).toBe(1);
    })();
    expect(await collectUntil(() => runtime.store.size === 0)).toBe(true);
    await ctx.close();
  });

  it('a finished local task whose handle is gone is collected, though a dependent lives (getDagIds only refers to it weakly)', async () => {
    await using ctx = new Context();
    let collected = false;
    const watch = new FinalizationRegistry(() => {
      collected = true;
    });
    const b = await (async () => {
      const a = ctx.spawn(() => new Float64Array(10_000));
      const b = ctx.spawn((x: Float64Array) => x.length, a);
      watch.register(a, 'a');
      expect(await b).toBe(10_000);
      return b;
    })();
    expect(await collectUntil(() => collected)).toBe(true);
    expect(await b).toBe(10_000);
  });

  it('the same once a task of the context has asked for a scheduler handle (the dependent keeps a weak reference)', async () => {
    await using ctx = new Context();
    await ctx.spawn(() => void schHandle());
    let collected = false;
    const watch = new FinalizationRegistry(() => {
      collected = true;
    });
    const b = await (async () => {
      const a = ctx.spawn(() => new Float64Array(10_000));
      const b = ctx.spawn((x: Float64Array) => x.length, a);
      watch.register(a, 'a');
      expect(await b).toBe(10_000);
      return b;
    })();
    expect(await collectUntil(() => collected)).toBe(true);
    expect(await b).toBe(10_000);
  });

  it('a result fetched by the caller moves there: the worker drops it at once', async () => {
    const { ctx, proc, runtime } = oneWorker();
    const t = ctx.spawn({ scope: new ExactScope(proc) }, () => new Float64Array(5000).fill(1));
    await t.wait();
    expect(runtime.store.size).toBe(1);
    const value = await t;
    expect(value.length).toBe(5000);
    expect(runtime.store.size).toBe(0);
    expect(await t).toBe(value);
    await ctx.close();
  });
});

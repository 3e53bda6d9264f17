// A processor in a dedicated worker thread, end to end: a real thread runs the fixture entry
// (`__fixtures__/tiny-thread.mjs`, through the built package) and a context places tasks there.
import { afterEach, describe, expect, it } from 'vitest';
import { UnsupportedError } from '../errors/errors.js';
import { disableLogging, enableLogging, fetchLogs } from '../log/event-log.js';
import { currentWorker } from '../processor/current-worker.js';
import { SharedCounters } from '../protocol/shared-counters.js';
import { Context } from '../registry/context.js';
import type { Plugin } from '../registry/plugin.js';
import { ExactScope } from '../scope/exact-scope.js';
import { TinyProc } from './__fixtures__/tiny-proc.mjs';
import { DedicatedThreadSlot } from './dedicated-thread-slot.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

declare const dtask: typeof import('../index.js');

const entry = new URL('./__fixtures__/tiny-thread.mjs', import.meta.url);
const open: Context[] = [];

afterEach(async () => {
  await Promise.all(open.splice(0).map((c) => c.close()));
});

function tiny(fail = false) {
  const counters = new SharedCounters<{ runs: number }>(['runs']);
  const slot = new DedicatedThreadSlot<{ greeting: string }, TinyProc>({
    name: 'tiny',
    describe: (r) => `tiny: ${r.greeting}`,
    startFailed: (e) => (UnsupportedError.isInstance(e) ? e.message : `tiny: ${e.message}`),
  });
  const plugin: Plugin = {
    name: 'tiny',
    async setup(host) {
      const processor = new TinyProc(currentWorker());
      await slot.start(host, {
        processor,
        entry,
        idThread: 1000,
        data: { fail, counters: counters.slots },
      });
    },
    loadModule: (url) => slot.loadModule(url),
    close: () => slot.close(),
  };
  const ctx = new Context({ plugins: [plugin] });
  open.push(ctx);
  return { ctx, slot, counters };
}

describe('a processor in a dedicated thread', () => {
  it('runs tasks scoped to it in its own thread, with the setup hook report and relayed events', async () => {
    enableLogging();
    fetchLogs();
    const { ctx, slot, counters } = tiny();
    expect(slot.describe()).toBe('tiny: not set up yet (await context.ready())');
    await ctx.ready();
    expect(slot.report).toEqual({ greeting: 'hello' });
    expect(slot.describe()).toBe('tiny: hello');
    expect(slot.processors.map((p) => p.id)).toEqual(['tiny:1:0']);
    const scope = new ExactScope(new TinyProc(1));
    const ran = await ctx.spawn({ scope }, () => {
      const device = (globalThis as { tinyDevice?: { count(): void } }).tinyDevice;
      device?.count();
      return [dtask.taskProcessor().id, typeof device];
    });
    expect(ran).toEqual(['tiny:1:0', 'object']);
    expect(counters.read()).toEqual({ runs: 1 });
    const logs = fetchLogs().filter((e) => e.processor === 'tiny:1:0');
    expect(logs.find((e) => e.kind === 'tiny-setup')).toMatchObject({ bytes: 3, detail: 'set up' });
    expect(logs.find((e) => e.kind === 'backend')?.detail).toBe('tiny: hello');
  });

  it('loads everywhere modules in the thread and says which could not load', async () => {
    const { ctx, slot } = tiny();
    await ctx.ready();
    const url = new URL('./__fixtures__/double.mjs', import.meta.url).href;
    await slot.loadModule(url);
    await expect(slot.loadModule(url.replace('double', 'missing'))).rejects.toThrow(
      'tiny:1:0 could not load the module',
    );
  });

  it('a setup hook that throws makes setup reject with UnsupportedError and ends the thread', async () => {
    const { ctx, slot } = tiny(true);
    await expect(ctx.ready()).rejects.toSatisfy(
      (e: Error) => UnsupportedError.isInstance(e) && e.message === 'no tiny device here',
    );
    expect(slot.report).toBeUndefined();
    await expect.poll(() => slot.thread?.exited).toBe(true);
  });

  it('close() ends the thread', async () => {
    const { ctx, slot } = tiny();
    await ctx.ready();
    await ctx.close();
    await expect.poll(() => slot.thread?.exited).toBe(true);
  });
});

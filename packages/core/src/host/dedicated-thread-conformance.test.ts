// Core's worker-host conformance kit against a processor in a dedicated thread (the tiny
// fixture entry, through the built package): the slot's pool replaces a killed thread, gives
// it up after repeated failed starts, fails tasks at close and loads everywhere modules in
// replacements.
import { describe, it } from 'vitest';
import { currentWorker } from '../processor/current-worker.js';
import { SharedCounters } from '../protocol/shared-counters.js';
import { Context } from '../registry/context.js';
import { workerHostConformance } from '../testing/worker-host-conformance.js';
import { TinyProc } from './__fixtures__/tiny-proc.mjs';
import type { DedicatedThread } from './dedicated-thread.js';
import { DedicatedThreadSlot } from './dedicated-thread-slot.js';

const entry = new URL('./__fixtures__/tiny-thread.mjs', import.meta.url);

workerHostConformance(
  'a dedicated thread slot',
  async () => {
    const counters = new SharedCounters<{ runs: number }>(['runs']);
    const slot = new DedicatedThreadSlot<{ greeting: string }, TinyProc>({
      name: 'tiny',
      describe: (r) => `tiny: ${r.greeting}`,
      startFailed: (e) => `tiny: ${e.message}`,
    });
    const context = new Context({
      plugins: [
        {
          name: 'tiny',
          async setup(host) {
            await slot.start(host, {
              processor: new TinyProc(currentWorker()),
              entry,
              idThread: 1000,
              data: { fail: false, counters: counters.slots },
            });
          },
          loadModule: (url) => slot.loadModule(url),
          close: () => slot.close(),
        },
      ],
    });
    await context.ready();
    return {
      context,
      processor: new TinyProc(1),
      current: () => slot.current,
      kill: (t) => (t as DedicatedThread<unknown>).kill(),
    };
  },
  { describe, it },
);

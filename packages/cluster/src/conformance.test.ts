// The processor conformance suite of @dtask/core/testing, run against a worker process of the
// cluster plugin (its ThreadProc(worker, 1)). The probe is a module function, loaded in the
// worker processes with everywhere() (each loads core's built copy under the same module URL).
import { Context, everywhere, ThreadProc } from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { afterAll, describe, it } from 'vitest';
import { cluster } from './index.js';

const PROBE_URL = new URL('./__fixtures__/conformance-probe.mjs', import.meta.url);

processorConformance(
  'cluster plugin: a worker process',
  async () => {
    const plugin = cluster({ workers: 1 });
    const context = new Context({ plugins: [plugin] });
    await context.ready();
    await everywhere(PROBE_URL, context);
    return { context, processor: new ThreadProc(plugin.processWorkers()[0].worker, 1) };
  },
  { describe, it, afterAll },
  { share: true },
);

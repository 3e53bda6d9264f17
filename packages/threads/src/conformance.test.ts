// The processor conformance suite of @dtask/core/testing, run against a worker thread of the
// threads plugin. Its tasks all run core's `processorProbe`, scoped exactly to the processor:
// a module function that cannot travel as source, so a fixture module re-exporting it is
// loaded with everywhere() (the main thread registers the very function the suite spawns;
// each thread loads core's built copy under the same module URL).
import { Context, everywhere, ThreadProc } from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { afterAll, describe, it } from 'vitest';
import { threads } from './index.js';

const PROBE_URL = new URL('./__fixtures__/conformance-probe.mjs', import.meta.url);

for (const thread of [2, 3]) {
  processorConformance(
    `threads plugin ThreadProc(1, ${thread})`,
    async () => {
      const context = new Context({ plugins: [threads({ count: 2 })] });
      await context.ready();
      await everywhere(PROBE_URL, context);
      return { context, processor: new ThreadProc(1, thread) };
    },
    { describe, it, afterAll },
    { share: true },
  );
}

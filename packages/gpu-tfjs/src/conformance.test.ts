// Core's processor conformance suite against the TfjsProc (wasm and cpu backends). Its tasks run core's
// `processorProbe` scoped exactly to the processor, loaded there with everywhere(). One context per
// backend serves all its tests (starting tfjs is the slow part).
import { Context, everywhere } from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { threads } from '@dtask/threads';
import { afterAll, describe, it } from 'vitest';
import { TfjsProc, tfjs } from './index.js';

const PROBE_URL = new URL('./__fixtures__/conformance-probe.mjs', import.meta.url);

// The backends that load here; a real GPU backend (tensorflow via tfjs-node-gpu) runs the same
// suite where it is installed (scripts/gpu-bench.sh runs the package's tests too).
for (const backend of ['wasm', 'cpu'] as const) {
  processorConformance(
    `gpu-tfjs TfjsProc(1, 0) on ${backend}`,
    async () => {
      const context = new Context({ plugins: [threads({ count: 1 }), tfjs({ backend })] });
      await context.ready();
      await everywhere(PROBE_URL, context);
      return { context, processor: new TfjsProc(1, 0) };
    },
    { describe, it, afterAll },
    { share: true },
  );
}

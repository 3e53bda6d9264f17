// Core's processor conformance suite against the TfjsProc (wasm backend). Its tasks run core's
// `processorProbe` scoped exactly to the processor, loaded there with everywhere().
import { Context, everywhere } from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { threads } from '@dtask/threads';
import { describe, it } from 'vitest';
import { TfjsProc, tfjs } from './index.js';

const PROBE_URL = new URL('./__fixtures__/conformance-probe.mjs', import.meta.url);

processorConformance(
  'gpu-tfjs TfjsProc(1, 0) on wasm',
  async () => {
    const context = new Context({ plugins: [threads({ count: 1 }), tfjs({ backend: 'wasm' })] });
    await context.ready();
    await everywhere(PROBE_URL, context);
    return { context, processor: new TfjsProc(1, 0) };
  },
  { describe, it },
);

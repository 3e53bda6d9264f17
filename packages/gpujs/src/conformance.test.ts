// Core's processor conformance suite against the GpujsProc (cpu mode, and headlessgl where an X
// server is up). Its tasks run core's `processorProbe` scoped exactly to the processor, loaded
// there with everywhere(). One context per mode serves all its tests (starting the threads and
// loading gpu.js was most of each test's CPU).
import { Context, everywhere } from '@dtask/core';
import { processorConformance } from '@dtask/core/testing';
import { threads } from '@dtask/threads';
import { afterAll, describe, it } from 'vitest';
import { gpujsRig, modesHere } from './__fixtures__/rig.js';
import { GpujsProc, gpujs } from './index.js';

const PROBE_URL = new URL('./__fixtures__/conformance-probe.mjs', import.meta.url);

for (const mode of await modesHere()) {
  processorConformance(
    `gpujs GpujsProc(1, 0) in ${mode} mode`,
    async () => {
      if (mode === 'headlessgl') {
        // One headlessgl processor per process (headless-gl loads in one thread only): the
        // suite runs against the file's shared context, which the rig closes after the file.
        const { ctx } = await gpujsRig({ mode });
        await everywhere(PROBE_URL, ctx);
        return { context: keepOpen(ctx), processor: new GpujsProc(1, 0) };
      }
      const context = new Context({ plugins: [threads({ count: 1 }), gpujs({ mode })] });
      await context.ready();
      await everywhere(PROBE_URL, context);
      return { context, processor: new GpujsProc(1, 0) };
    },
    { describe, it, afterAll },
    { share: true },
  );
}

/** `ctx` with a `close()` that leaves it open (the rig closes it after the file). */
function keepOpen(ctx: Context): Context {
  return new Proxy(ctx, {
    get(target, key) {
      if (key === 'close') return async () => {};
      const v = Reflect.get(target, key, target);
      return typeof v === 'function' ? v.bind(target) : v;
    },
  });
}

// Core's worker-host conformance kit against an accelerator's dedicated thread: a killed
// thread is replaced and the task it held runs again, one that keeps dying while it starts is
// given up, close() fails the tasks still there, and an everywhere module reaches the
// replacement. Needs the built dist (the thread runs dist/worker-entry.js).
import { Context } from '@dtask/core';
import type { DedicatedThread } from '@dtask/core/plugin';
import { workerHostConformance } from '@dtask/core/testing';
import { describe, it } from 'vitest';
import { AccelProc, accelerator } from './index.js';

workerHostConformance(
  'example-accelerator AccelProc thread',
  async () => {
    const plugin = accelerator();
    const context = new Context({ plugins: [plugin] });
    await context.ready();
    return {
      context,
      processor: new AccelProc(1, 0),
      current: () => plugin.thread(0),
      kill: (t) => (t as DedicatedThread<unknown>).kill(),
    };
  },
  { describe, it },
);

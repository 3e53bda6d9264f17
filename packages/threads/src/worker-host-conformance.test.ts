// The worker-host conformance kit of @dtask/core/testing, run against the threads plugin: a
// real worker thread (thread 2) crashes, keeps dying while it starts, holds tasks at close,
// and is replaced after an everywhere module was loaded. Needs the built dist.
import { Context, ThreadProc } from '@dtask/core';
import { workerHostConformance } from '@dtask/core/testing';
import { describe, it } from 'vitest';
import { threads } from './index.js';

workerHostConformance(
  'threads plugin',
  async () => {
    const plugin = threads({ count: 2 });
    const context = new Context({ plugins: [plugin] });
    await context.ready();
    const current = () => plugin.threadWorkers().find((w) => w.proc.thread === 2 && !w.exited);
    return {
      context,
      processor: new ThreadProc(1, 2),
      current,
      kill: (w) => void (w as NonNullable<ReturnType<typeof current>>).worker.terminate(),
    };
  },
  { describe, it },
);

// The worker-host conformance kit of @dtask/core/testing, run against the cluster plugin: a
// real local worker process is killed (SIGKILL), keeps dying while it starts, holds tasks at
// close, and is replaced after an everywhere module was loaded. Needs the built dist.
import { Context, ThreadProc } from '@dtask/core';
import { workerHostConformance } from '@dtask/core/testing';
import { describe, it } from 'vitest';
import { cluster } from './index.js';
import type { ProcessWorker } from './scheduler/process-worker.js';

workerHostConformance(
  'cluster plugin',
  async () => {
    const plugin = cluster({ workers: 1 });
    const context = new Context({ plugins: [plugin] });
    await context.ready();
    const [first] = plugin.processWorkers();
    const id = first.worker;
    return {
      context,
      processor: new ThreadProc(id, 1),
      current: () => plugin.processWorkers().find((w) => w.worker === id),
      kill: (w) => {
        const child = (w as ProcessWorker).child;
        if (child?.pid !== undefined && child.exitCode === null) child.kill('SIGKILL');
      },
    };
  },
  { describe, it },
);

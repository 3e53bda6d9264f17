// Random DAGs against their sequential meaning (core's `randomDags` kit) on 2 worker threads
// and the main thread: scopes, big and small results, cancellation, and results fetched while
// the graph still runs (regression: that hung tasks sent ahead, see core/src/sched/executors/worker-connection/outgoing-args.ts;
// two of these four seeds hung).
import { scope } from '@dtask/core';
import { randomDags } from '@dtask/core/testing';
import { describe, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

randomDags(
  'threads({ count: 2 })',
  async () => ({
    context: (await rig()).ctx,
    placements: [
      {},
      { scope: scope({ worker: 1, thread: 1 }) },
      { scope: scope({ worker: 1, thread: 2 }) },
      { scope: scope({ worker: 1, thread: 3 }) },
    ],
  }),
  { describe, it },
);

// Random DAGs against their sequential meaning (core's `randomDags` kit) on 2 worker threads
// with a 64 KiB memory limit: results spill to LMDB and come back, and those made on the main
// thread live on the device (regression: a task sent ahead behind an input on its worker
// waited forever when another of its inputs had to be read from the device first).
import { Context, scope } from '@dtask/core';
import { randomDags } from '@dtask/core/testing';
import { threads } from '@dtask/threads';
import { describe, it } from 'vitest';
import { lmdb } from './lmdb-plugin.js';

randomDags(
  'lmdb({ memoryLimit: 64 KiB }) with threads({ count: 2 })',
  async () => {
    const context = new Context({
      plugins: [threads({ count: 2 }), lmdb({ memoryLimit: 64 * 1024 })],
    });
    await context.ready();
    return {
      context,
      placements: [
        {},
        { scope: scope({ worker: 1, thread: 1 }) },
        { scope: scope({ worker: 1, thread: 2 }) },
        { scope: scope({ worker: 1, thread: 3 }) },
      ],
      close: () => context.close(),
    };
  },
  { describe, it },
  { seeds: [1, 2, 3, 4, 5, 6] },
);

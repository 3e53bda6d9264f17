// Dagger's streaming cases (core's `streamingConformance` kit) on 2 worker threads and the main
// thread, each task's scope chosen at random as Dagger's test/streaming.jl does.
import { scope } from '@dtask/core';
import { streamingConformance } from '@dtask/core/testing';
import { describe, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

const placements = [
  { scope: scope({ worker: 1, thread: 1 }) },
  { scope: scope({ worker: 1, thread: 2 }) },
  { scope: scope({ worker: 1, thread: 3 }) },
];

streamingConformance(
  'threads({ count: 2 }), a random thread per task',
  async () => ({
    context: (await rig()).ctx,
    pick: () => placements[Math.floor(Math.random() * placements.length)],
  }),
  { describe, it },
);

streamingConformance(
  'threads({ count: 2 }), every task on a worker thread',
  async () => ({
    context: (await rig()).ctx,
    pick: () => placements[1 + Math.floor(Math.random() * 2)],
  }),
  { describe, it },
);

// Dagger's streaming cases (core's `streamingConformance` kit) on 2 worker threads and the main
// thread, each task's scope chosen at random as Dagger's test/streaming.jl does.
import { Context, scope, spawnStreaming, streamValues } from '@dtask/core';
import { streamingConformance } from '@dtask/core/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';
import { threads } from './index.js';

const placements: { scope: ReturnType<typeof scope> }[] = [
  { scope: scope({ worker: 1, thread: 1 }) },
  { scope: scope({ worker: 1, thread: 2 }) },
  { scope: scope({ worker: 1, thread: 3 }) },
];

/** A ready context with 2 threads that the kit's cases share (the kit closes it after them). */
async function sharedThreads(): Promise<Context> {
  const context = new Context({ plugins: [threads({ count: 2 })] });
  await context.ready();
  return context;
}

streamingConformance(
  'threads({ count: 2 }), a random thread per task',
  async () => ({
    context: await sharedThreads(),
    pick: () => placements[Math.floor(Math.random() * placements.length)],
  }),
  { describe, it, afterAll },
  { share: true },
);

streamingConformance(
  'threads({ count: 2 }), every task on a worker thread',
  async () => ({
    context: await sharedThreads(),
    pick: () => placements[1 + Math.floor(Math.random() * 2)],
  }),
  { describe, it, afterAll },
  { share: true },
);

describe('streaming tasks with functions loaded by everywhere()', () => {
  it('run on the thread their scope names, imported there by module and name', async () => {
    const { ctx, tasks } = await rig();
    const [where, doubled] = spawnStreaming(() => {
      const source = ctx.spawn({ scope: placements[0]?.scope, streamMaxEvals: 20 }, () => 21);
      return [
        ctx.spawn({ scope: placements[2]?.scope, streamMaxEvals: 20 }, tasks.whereAmI),
        ctx.spawn({ scope: placements[1]?.scope }, tasks.useHelper, source),
      ];
    });
    const [places, values] = await Promise.all([collect(where), collect(doubled)]);
    expect(places).toEqual(Array(20).fill('thread:1:3'));
    expect(values).toEqual(Array(20).fill(42));
  });
});

async function collect(t: PromiseLike<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const v of streamValues(t)) out.push(v);
  return out;
}

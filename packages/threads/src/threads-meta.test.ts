// A `meta: true` task on a worker thread receives its `Chunk` and `DTask`
// arguments as `Chunk` handles (Dagger's `meta`), as it does on the main thread, and can fetch
// their data through them.
import * as core from '@dtask/core';
import { type Chunk, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

const onThread = (thread: number) => scope({ worker: 1, thread });

/** What a meta task reports of its argument: a Chunk?, where its data is, and the data. */
const inspect = async (c: Chunk<unknown>) => [
  dtask.isChunk(c),
  c.processor.id,
  await c.fetch(),
  dtask.taskProcessor().id,
];

describe('meta: true on worker threads', () => {
  it('a Chunk argument arrives as a Chunk whose fetch gives its data', async () => {
    const { ctx } = await rig();
    const c = ctx.toChunk({ x: [1, 2, 3] });
    const t = ctx.spawn({ meta: true, scope: onThread(2) }, inspect, c);
    expect(await t).toEqual([true, 'thread:1:1', { x: [1, 2, 3] }, 'thread:1:2']);
  });

  it('a DTask argument arrives as the Chunk of its result, wherever that result is', async () => {
    const { ctx } = await rig();
    const big = ctx.spawn({ scope: onThread(3) }, () => new Float64Array(1000).fill(2));
    const small = ctx.spawn({ scope: onThread(2) }, () => 'small');
    const t = ctx.spawn({ meta: true, scope: onThread(2) }, inspect, big as never);
    const [isChunk, holder, data, ranOn] = (await t) as [boolean, string, Float64Array, string];
    expect([isChunk, holder, ranOn]).toEqual([true, 'thread:1:3', 'thread:1:2']);
    expect(data.length).toBe(1000);
    expect(data[999]).toBe(2);
    const u = ctx.spawn({ meta: true, scope: onThread(3) }, inspect, small as never);
    expect((await u).slice(0, 3)).toEqual([true, 'thread:1:2', 'small']);
  });

  it('default placement: the chunk handle reaches a worker thread too', async () => {
    const { ctx } = await rig();
    const c = ctx.toChunk(41);
    const t = ctx.spawn(
      { meta: true },
      async (x: Chunk<number>) => [
        dtask.isChunk(x),
        (await x.fetch()) + 1,
        dtask.taskProcessor().id,
      ],
      c,
    );
    const [isChunk, value, ranOn] = (await t) as [boolean, number, string];
    expect([isChunk, value]).toEqual([true, 42]);
    expect(ranOn).toMatch(/^thread:1:[23]$/);
  });
});

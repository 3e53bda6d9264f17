// Logs of a run on worker threads: where each task ran, and the data that had to move
// between processors (`move` events: from the holder to the processor of the task taking it,
// with its size), which the viz report and the demo's summary count.
import { Context, enableLogging, fetchLogs, scope } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { threads } from './index.js';

let ctx: Context | undefined;
afterEach(async () => {
  await ctx?.close();
  ctx = undefined;
});

describe('logs on worker threads', () => {
  it('a result taken by a task on another thread is logged as a move with its size', async () => {
    ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    enableLogging();
    fetchLogs();
    const made = ctx.spawn(
      { name: 'make', scope: scope({ thread: 2 }) },
      (n: number) => new Float64Array(n).fill(1),
      1 << 16,
    );
    const used = ctx.spawn(
      { name: 'use', scope: scope({ thread: 3 }) },
      (x: Float64Array) => x.length,
      made,
    );
    expect(await used).toBe(1 << 16);
    const logs = fetchLogs();
    const moves = logs.filter((e) => e.kind === 'move');
    expect(moves).toEqual([
      expect.objectContaining({
        from: 'thread:1:2',
        to: 'thread:1:3',
        name: 'make',
        bytes: 8 * (1 << 16),
      }),
    ]);
    const ran = logs.filter((e) => e.kind === 'finish').map((e) => [e.name, e.processor]);
    expect(ran).toEqual(
      expect.arrayContaining([
        ['make', 'thread:1:2'],
        ['use', 'thread:1:3'],
      ]),
    );
  });
});

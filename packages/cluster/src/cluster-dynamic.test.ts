// Dynamic scheduler control (API.md, schHandle) from tasks in worker processes: fetch through the
// handle, and getDagIds, whose synchronous answer the process's heartbeat thread writes into the
// memory the task's thread waits on. Worker processes run the built dist: build before running
// this test.
import { Context, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { cluster } from './index.js';

declare const dtask: typeof import('@dtask/core');

describe('cluster: schHandle in worker processes', () => {
  it('fetch through the handle and getDagIds work on both threads', async () => {
    const plugin = cluster({ workers: 1, threads: 1 });
    await using ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
    const [{ worker }] = plugin.processWorkers();
    const a = ctx.spawn(() => 20);
    for (const thread of [1, 2]) {
      const [fetched, dagIds] = await ctx.spawn(
        { scope: scope({ worker, thread }) },
        async (_a: number, id: number) => {
          const h = dtask.schHandle();
          let answer: string;
          try {
            answer = JSON.stringify([...dtask.getDagIds(h).keys()]);
          } catch (e) {
            answer = `${(e as { code?: string }).code}: ${(e as Error).message}`;
          }
          return [await h.fetch(id), answer];
        },
        a, // an input, so the scheduler holds it while the task runs
        a.id,
      );
      expect(fetched).toBe(20);
      expect(JSON.parse(dagIds as string)).toContain(a.id);
    }
  }, 30_000);
});

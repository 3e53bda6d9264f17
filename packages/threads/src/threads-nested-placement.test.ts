// Nested tasks placed by the thread whose task spawned them (core's runtime/owned-tasks.ts): a
// tree of nested spawns runs on its root's thread without a task through the scheduler, exact;
// a task placed elsewhere may take one of them; failures and cancellation behave as for tasks
// the scheduler placed. Worker threads load the built dist of @dtask/threads and @dtask/core.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { rig, until } from './__fixtures__/harness.js';

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

describe('threads: nested tasks placed by their parent thread', () => {
  it('a tree of 1,365 nested tasks runs on its root thread, exact, almost none through the scheduler', async () => {
    const { ctx, tasks } = await rig();
    const n = 4 ** 5;
    const [sum, on] = await ctx.spawn(onThread(2), tasks.nestedTree, 5, 4, 7);
    expect(sum).toBe(7 * n + (n * (n - 1)) / 2);
    expect(on).toContain('thread:1:2');
    // The thread reports what it placed itself, in batches. A few tasks may go through the
    // scheduler while the thread has yet to time the tree's function (on a loaded machine).
    const counted = () => {
      const t = ctx.stats().tasks;
      return t.spawned + t.placedByWorkers.finished;
    };
    await until(() => counted() === 1365, 5000, 'the report');
    const { spawned, failed, placedByWorkers } = ctx.stats().tasks;
    expect(failed).toBe(0);
    expect(placedByWorkers.finished).toBeGreaterThan(0.9 * 1364);
    expect(spawned).toBeLessThan(0.1 * 1364);
  });

  it('trees on both threads at once, rooted by the main thread, all exact', async () => {
    const { ctx, tasks } = await rig();
    const roots = Array.from({ length: 8 }, (_, i) => ctx.spawn(tasks.nestedTree, 4, 3, i * 81));
    const sums = (await Promise.all(roots)).map(([s]) => s);
    expect(sums).toEqual(Array.from({ length: 8 }, (_, i) => 81 * i * 81 + (81 * 80) / 2));
  });

  it('a task placed elsewhere takes a nested result placed here; failures name their task', async () => {
    const { ctx, tasks } = await rig();
    const r = await ctx.spawn(onThread(2), tasks.nestedAcross, 3);
    expect(r.here).toBe('thread:1:2');
    expect(r.child).toBe(20);
    expect(r.away).toEqual(['ok', 21]);
    expect(r.back).toEqual(['ok', 121]);
    expect(r.failing).toEqual([
      'DTaskFailedError',
      expect.stringMatching(/failed: Error: nested boom/),
    ]);
    expect(r.after).toEqual([
      'DTaskFailedError',
      expect.stringMatching(/failed because upstream task #\d+ failed .*nested boom/),
    ]);
  });

  it('cancelling a nested task placed here fires its signal and fails it with CancelledError', async () => {
    const { ctx, tasks } = await rig();
    expect(await ctx.spawn(onThread(3), tasks.nestedCancel)).toEqual([
      true,
      'DTaskFailedError',
      false,
    ]);
  });
});

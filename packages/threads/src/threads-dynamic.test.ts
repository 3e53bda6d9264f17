// schHandle() inside tasks on worker threads: from inside a task on a worker, spawn, await of
// other tasks, withOptions, taskProcessor() and schHandle() all work.
import { CancelledError, DTaskFailedError, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { failureOf, rig, sharedInts } from './__fixtures__/harness.js';

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });

describe('threads: schHandle() in a worker task', () => {
  it('adds a thunk and fetches it, reads the graph synchronously, and runs code in the scheduler', async () => {
    const { ctx, tasks } = await rig();
    const root = ctx.spawn(onThread(2), tasks.dynamicControl);
    const b = ctx.spawn(onThread(3), (x: unknown) => typeof x, root);
    const c = ctx.spawn(onThread(3), (x: unknown) => typeof x, root);
    const d = ctx.spawn(onThread(2), (x: string, y: string) => x + y, b, c);
    const out = await root;
    expect(out.where).toBe('thread:1:2');
    expect(out.taskId).toBe(root.id);
    expect(out.sum).toBe(42);
    expect(out.ran).toBe('function');
    expect(out.dag.get(root.id)).toEqual(new Set([b.id, c.id]));
    expect(out.dag.get(b.id)).toEqual(new Set([d.id]));
    expect(out.dag.get(c.id)).toEqual(new Set([d.id]));
    expect(out.dag.get(d.id)).toEqual(new Set());
    expect(await d).toBe('objectobject');
  });

  it("a thunk added on a worker is the scheduler's: a sibling fetches it by id through its own handle", async () => {
    const { ctx, tasks } = await rig();
    expect(await ctx.spawn(onThread(2), tasks.siblingThroughHandle)).toEqual([['ok', 42], true]);
  });

  it('fetching itself or a dependent through the handle is a DynamicTaskError; another live task is fine', async () => {
    const { ctx, tasks } = await rig();
    const other = ctx.spawn(onThread(3), tasks.sleep, 300, 3);
    const first = ctx.spawn(onThread(2), tasks.fetchThroughHandle, other.id);
    expect(await first).toEqual(['ok', 3]);
    // A task whose dependent it tries to fetch: the dependent's id is known only once spawned,
    // so the task waits for it in shared memory.
    const flags = sharedInts(2);
    const probe = ctx.spawn(
      onThread(2),
      async (f: Int32Array) => {
        while (Atomics.load(f, 0) === 0) await new Promise((r) => setTimeout(r, 5));
        const h = (globalThis as any).dtask.schHandle();
        const tryFetch = async (id: number) => {
          try {
            return ['ok', await h.fetch(id)];
          } catch (error: any) {
            return [error.name, error.code];
          }
        };
        return [await tryFetch(f[1]), await tryFetch(h.taskId)];
      },
      flags,
    );
    const dependent = ctx.spawn(onThread(3), (x: unknown) => x, probe);
    Atomics.store(flags, 1, dependent.id);
    Atomics.store(flags, 0, 1);
    Atomics.notify(flags, 0);
    expect(await probe).toEqual([
      ['DynamicTaskError', 'DTASK_DYNAMIC'],
      ['DynamicTaskError', 'DTASK_DYNAMIC'],
    ]);
    expect(await dependent).toHaveLength(2);
  });

  it('halt() from a worker task cancels what the scheduler holds; later tasks still run', async () => {
    const { ctx, tasks } = await rig();
    const halter = ctx.spawn(onThread(2), tasks.haltFromThread, 2000);
    const error = await failureOf(halter);
    expect(error).toBeInstanceOf(DTaskFailedError);
    expect(error.cause).toBeInstanceOf(CancelledError);
    expect(await ctx.spawn(onThread(3), tasks.add, 2, 3)).toBe(5);
  });

  it('tasks that await children on their own thread do not hold the children back (regression: deadlock)', async () => {
    const { ctx, tasks } = await rig();
    // Once learned, a parent's estimate (it waits ~40 ms for its children) fills the thread's
    // queue-ahead budget, so the next parents are parked; the children must not queue behind them.
    expect(await ctx.spawn(onThread(2), tasks.awaitChildren, 3, 40, 2)).toBe(3);
    const parents = Array.from({ length: 4 }, () =>
      ctx.spawn(onThread(2), tasks.awaitChildren, 3, 10, 2),
    );
    const all = Promise.all(parents.map((p) => p.fetch()));
    const timeout = new Promise((resolve) => setTimeout(() => resolve('deadlock'), 5000));
    expect(await Promise.race([all, timeout])).toEqual([3, 3, 3, 3]);
  });
});

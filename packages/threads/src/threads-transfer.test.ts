// Results that move to the caller for good are transferred, not copied:
// ArrayBuffers are transferred where the sender no longer needs them.
import { scope } from '@dtask/core';
import { RemoteResult } from '@dtask/core/worker';
import { describe, expect, it } from 'vitest';
import { rig } from './__fixtures__/harness.js';

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });
const internal = (t: unknown) => t as { value: unknown };
const N = 200_000;

describe('threads: transfer on fetch', () => {
  it('fetching a big result moves its buffer to the caller: no copy, and the worker lets it go', async () => {
    const { ctx, tasks } = await rig();
    const big = ctx.spawn(onThread(2), tasks.makeKept, N, 2.5);
    await big.wait();
    expect(internal(big).value).toBeInstanceOf(RemoteResult);
    const value = await big;
    expect(value.length).toBe(N);
    expect(value[N - 1]).toBe(2.5);
    // The worker's array was transferred: it is detached there (a copy would leave it whole).
    expect(await ctx.spawn(onThread(2), tasks.keptBytes)).toBe(0);
    // The result now lives on the main thread: later fetches return the same object.
    expect(internal(big).value).toBe(value);
    expect(await big.fetch()).toBe(value);
    // Tasks that take it still get it, on any thread.
    const [sum, length] = await ctx.spawn(onThread(3), tasks.sumArray, big);
    expect([sum, length]).toEqual([2.5 * N, N]);
  });

  it('a result that a running task on its worker still uses is copied, not transferred', async () => {
    const { ctx, tasks } = await rig();
    const big = ctx.spawn(onThread(2), tasks.makeKept, N, 1);
    const user = ctx.spawn(onThread(2), tasks.sumAfter, 300, big);
    await big.wait();
    const value = await big;
    expect(value[0]).toBe(1);
    expect(await user).toBe(N);
    expect(await ctx.spawn(onThread(2), tasks.keptBytes)).toBe(N * 8);
  });

  it('concurrent fetches and a dependent on the other thread during the move all see the value', async () => {
    const { ctx, tasks } = await rig();
    const big = ctx.spawn(onThread(2), tasks.makeBig, N, 3);
    await big.wait();
    const [a, b, dependent] = await Promise.all([
      big.fetch(),
      big.fetch(),
      ctx.spawn(onThread(3), tasks.sumArray, big),
    ]);
    expect(a).toBe(b);
    expect(a[N - 1]).toBe(3);
    expect(dependent.slice(0, 2)).toEqual([3 * N, N]);
  });

  it('a task whose input is on its way here is not sent ahead of its other input (regression: it hung)', async () => {
    const { ctx, tasks } = await rig();
    const big = ctx.spawn(onThread(2), tasks.makeBig, 4_000_000, 1); // stays on thread 2
    await big.wait();
    const fetched = big.fetch(); // starts moving it here
    const small = ctx.spawn(onThread(2), tasks.add, 1, 2); // done in microseconds, not kept
    const both = ctx.spawn(onThread(2), (xs: Float64Array, y: number) => xs.length + y, big, small);
    expect(await both).toBe(4_000_003);
    expect((await fetched).length).toBe(4_000_000);
  });

  it('a task waiting for one input to come here plans its other inputs again once it has (regression: it hung)', async () => {
    const { ctx, tasks } = await rig();
    const x = ctx.spawn(onThread(2), tasks.makeBig, 4_000_000, 1);
    const y = ctx.spawn(onThread(2), tasks.makeBig, 1_000, 2); // 8 KB: kept on thread 2
    await Promise.all([x.wait(), y.wait()]);
    const fx = x.fetch(); // x starts moving here
    const d = ctx.spawn(onThread(2), (a: Float64Array, b: Float64Array) => a.length + b[0], x, y);
    // Right after d is placed (and waits for x), y moves here too: thread 2 lets it go.
    const fy = await new Promise<Promise<Float64Array>>((resolve) =>
      queueMicrotask(() => resolve(y.fetch())),
    );
    expect(await d).toBe(4_000_002);
    expect((await fx).length).toBe(4_000_000);
    expect((await fy).length).toBe(1_000);
  });
});

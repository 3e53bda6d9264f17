// Results that move to the caller for good are transferred, not copied (issue "@dtask/threads":
// "ArrayBuffers are transferred where the sender no longer needs them").
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
});

// The `retries` option on real worker threads: a task that throws runs again, its dependent
// (sent ahead to the thread) gets the retried result, and each retry is logged where it ran.
import { disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { rig, sharedInts } from './__fixtures__/harness.js';

declare const dtask: typeof import('@dtask/core');

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

/** Throws until it has been called `fails + 1` times (counted in shared memory, across threads). */
const flaky = (tries: Int32Array, fails: number): [number, string] => {
  const n = Atomics.add(tries, 0, 1);
  if (n < fails) throw new RangeError(`try ${n + 1} failed`);
  return [n + 1, dtask.taskProcessor().id];
};

describe('retries on threads', () => {
  it('re-runs a throwing task on the threads; its sent-ahead dependents get the new result', async () => {
    const { ctx } = await rig();
    enableLogging();
    const tries = sharedInts();
    const t = ctx.spawn({ retries: 3, retryOn: ['RangeError'], name: 'flaky' }, flaky, tries, 2);
    const chain = ctx.spawn(([n]: [number, string]) => n * 10, t);
    const last = ctx.spawn((x: number) => x + 1, chain);
    expect(await last).toBe(31);
    const [n, where] = (await t) as [number, string];
    expect(n).toBe(3);
    expect(where).toMatch(/^thread:1:[23]$/);
    const retries = fetchLogs().filter((e) => e.kind === 'retry' && e.task === t.id);
    expect(retries).toHaveLength(2);
    expect(retries.every((e) => /^thread:1:[23]$/.test(e.processor ?? ''))).toBe(true);
    expect(retries[0]?.detail).toBe('attempt 2 of 4 after: RangeError: try 1 failed');
  });

  it('gives up after retries and fails the dependents with the last error; other work goes on', async () => {
    const { ctx } = await rig();
    const tries = sharedInts();
    const t = ctx.spawn({ retries: 1 }, flaky, tries, 5);
    const dependent = ctx.spawn((x: unknown) => x, t);
    const error: any = await dependent.fetch().catch((e: unknown) => e);
    expect(error.code).toBe('DTASK_FAILED');
    expect(error.cause.message).toBe('try 2 failed');
    expect(Atomics.load(tries, 0)).toBe(2);
    expect(await ctx.spawn((x: number) => x * 2, 21)).toBe(42);
  });
});

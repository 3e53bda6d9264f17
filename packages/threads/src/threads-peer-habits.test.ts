// What Dask, Ray and Piscina users reach for first, on real worker threads: results as they
// finish (asCompleted, wait, waitAny) and map over an iterable.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { asCompleted, Context, fetchAll, map, QueueFullError, wait, waitAny } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { sharedRig } from './__fixtures__/harness.js';
import { threads } from './index.js';

declare const dtask: typeof import('@dtask/core');

const sleepThen = async (ms: number, v: string) => {
  await new Promise((r) => setTimeout(r, ms));
  return [v, dtask.taskProcessor().id];
};

/** `sleepThen` once `_first` (another task's result, passed as an argument) is there. */
const sleepAfter = async (_first: unknown, ms: number, v: string) => {
  await new Promise((r) => setTimeout(r, ms));
  return [v, dtask.taskProcessor().id];
};

describe('first-completed and map on threads', () => {
  // One context with two threads for the tests that look only at their own tasks' results
  // (about 0.2 s of CPU a test to start); the maxQueue test makes a context of its own.
  const shared = sharedRig();
  it('asCompleted and wait see tasks on worker threads finish in their order', async () => {
    const { ctx } = shared();
    // The slow task takes the fast one's result, so it finishes last at any load (two sleeps
    // alone, 150 ms and 1 ms, came back in the other order at load 55): given slow first, they
    // finish fast first.
    const fast = ctx.spawn(sleepThen, 1, 'fast');
    const tasks = [ctx.spawn(sleepAfter, fast, 150, 'slow'), fast];
    const first = await waitAny(tasks);
    expect(first.done).toEqual([tasks[1]]);
    const order = [];
    for await (const { task } of asCompleted(tasks)) order.push(await task);
    expect(order.map(([v]) => v)).toEqual(['fast', 'slow']);
    expect(order.every(([, where]) => /^thread:1:[23]$/.test(where as string))).toBe(true);
    expect((await wait(tasks)).pending).toEqual([]);
  });

  it('fetchAll gathers tasks run on the threads, and works inside a task on a thread', async () => {
    const { ctx } = shared();
    const tasks = Array.from({ length: 5_000 }, (_, i) => ctx.spawn((x: number) => x + 1, i));
    const values = await fetchAll(tasks);
    expect(values).toEqual(Array.from({ length: 5_000 }, (_, i) => i + 1));
    const inside = await ctx.spawn(async () => {
      const mine = [1, 2, 3].map((x) => dtask.spawn((y: number) => y * 10, x));
      return [await dtask.fetchAll(mine), dtask.taskProcessor().id];
    });
    expect(inside[0]).toEqual([10, 20, 30]);
    expect(inside[1]).toMatch(/^thread:1:[23]$/);
  });

  it('map runs each item on the threads and keeps input order', async () => {
    const { ctx } = shared();
    const where = new Set<string>();
    const out: number[] = [];
    for await (const [x, proc] of map(
      (i: number) => [i * 2, dtask.taskProcessor().id] as const,
      Array.from({ length: 2_000 }, (_, i) => i),
      { context: ctx },
    )) {
      out.push(x);
      where.add(proc);
    }
    expect(out).toEqual(Array.from({ length: 2_000 }, (_, i) => i * 2));
    expect([...where].every((id) => /^thread:1:[23]$/.test(id))).toBe(true);
  });

  it('maxQueue refuses a spawn past the limit with real threads busy, and takes it once there is room', async () => {
    const limited = new Context({ plugins: [threads({ count: 2 })], maxQueue: 4 });
    try {
      await limited.ready();
      const slow = (ms: number) => {
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
        return dtask.taskProcessor().id;
      };
      const held = [1, 2, 3, 4].map(() => limited.spawn(slow, 100));
      expect(() => limited.spawn(slow, 1)).toThrow(QueueFullError);
      await limited.whenQueueHasRoom();
      expect(limited.queueSize).toBeLessThan(4);
      expect(await limited.spawn(slow, 1)).toMatch(/^thread:/);
      expect(new Set(await Promise.all(held)).size).toBeGreaterThan(0);
    } finally {
      await limited.close();
    }
  });

  it('a plain program maps over an endless generator: 1,000,000 results exact, heap flat', () => {
    const script = fileURLToPath(new URL('./__fixtures__/map-endless.mjs', import.meta.url));
    const child = spawnSync(process.execPath, ['--expose-gc', script, '1000000'], {
      encoding: 'utf8',
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(child.signal, 'killed by the timeout').toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const { n, sum, growth, perSecond } = JSON.parse(child.stdout.trim());
    let expected = 0;
    for (let i = 0; i < 1_000_000; i++) expected += i % 7;
    expect({ n, sum }).toEqual({ n: 1_000_000, sum: expected });
    console.log(
      `map over 1,000,000 items: heap growth ${(growth / 2 ** 20).toFixed(2)} MiB, ${perSecond} items/s`,
    );
    expect(growth).toBeLessThan(10 * 2 ** 20);
  }, 130_000);

  it('a plain program spawns from an endless generator under maxQueue: 1,000,000 results exact, heap flat', () => {
    const script = fileURLToPath(new URL('./__fixtures__/spawn-endless.mjs', import.meta.url));
    const child = spawnSync(process.execPath, ['--expose-gc', script, '1000000'], {
      encoding: 'utf8',
      timeout: 120_000,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(child.signal, 'killed by the timeout').toBeNull();
    expect(child.status, child.stderr).toBe(0);
    const { n, sum, peak, growth, perSecond } = JSON.parse(child.stdout.trim());
    let expected = 0;
    for (let i = 0; i < 1_000_000; i++) expected += i % 7;
    expect({ n, sum }).toEqual({ n: 1_000_000, sum: expected });
    expect(peak).toBeLessThanOrEqual(1024);
    console.log(
      `spawn under maxQueue, 1,000,000 items: heap growth ${(growth / 2 ** 20).toFixed(2)} MiB, ${perSecond} items/s`,
    );
    expect(growth).toBeLessThan(10 * 2 ** 20);
  }, 130_000);
});

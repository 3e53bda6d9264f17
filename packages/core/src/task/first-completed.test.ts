import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { spawn } from '../registry/spawn.js';
import { after } from './__fixtures__/after.js';
import { asCompleted } from './as-completed.js';
import type { DTask } from './dtask.js';
import { wait, waitAny } from './wait-tasks.js';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const failAfter = (ms: number) =>
  spawn(async (m: number) => {
    await new Promise((r) => setTimeout(r, m));
    throw new Error('boom');
  }, ms);

describe('asCompleted', () => {
  it('gives the same handles in finishing order, failed ones too', async () => {
    const tasks = [after(60, 'c'), failAfter(30), after(5, 'a')];
    const seen: unknown[] = [];
    for await (const { task, index } of asCompleted(tasks)) {
      expect(tasks[index]).toBe(task);
      seen.push(await task.fetch().catch((e: unknown) => e));
    }
    expect(seen[0]).toBe('a');
    expect(seen[1]).toBeInstanceOf(DTaskFailedError);
    expect(seen[2]).toBe('c');
  });

  it('keeps the order from the call on, before the first read', async () => {
    const slow = after(40, 2);
    const fast = after(1, 1);
    const it = asCompleted([slow, fast]);
    await sleep(80);
    const order: number[] = [];
    for await (const { task } of it) order.push(await task);
    expect(order).toEqual([1, 2]);
  });

  it('ends at once for no tasks, and stops on break', async () => {
    for await (const _ of asCompleted([])) throw new Error('no tasks, no turns');
    let turns = 0;
    for await (const _ of asCompleted([after(1, 0), after(1, 1)])) {
      turns++;
      break;
    }
    expect(turns).toBe(1);
  });

  it('refuses anything but DTasks, at the call', () => {
    expect(() => asCompleted([Promise.resolve(1)] as unknown as DTask<number>[])).toThrow(
      /tasks\[0\] is not a DTask/,
    );
    expect(() => asCompleted(3 as unknown as DTask<number>[])).toThrow(ArgumentError);
  });
});

describe('wait and waitAny', () => {
  it('waits for count tasks and splits done from pending', async () => {
    const tasks = [after(200, 'slow'), after(1, 'a'), after(5, 'b')];
    const { done, pending } = await wait(tasks, { count: 2 });
    expect(done.length).toBeGreaterThanOrEqual(2);
    expect(done.slice(0, 2)).toEqual([tasks[1], tasks[2]]);
    expect(pending).toEqual([tasks[0]]);
    expect(await wait(tasks)).toEqual({ done: [tasks[1], tasks[2], tasks[0]], pending: [] });
  });

  it('returns what finished by the timeout, and never rejects for a failed task', async () => {
    const tasks = [after(5_000, 'never in time'), failAfter(1)];
    const started = Date.now();
    const { done, pending } = await wait(tasks, { timeoutMs: 50 });
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(done).toEqual([tasks[1]]);
    expect(pending).toEqual([tasks[0]]);
    tasks[0]?.cancel();
  });

  it('waitAny resolves with the first to finish', async () => {
    const tasks = [after(300, 1), after(1, 2)];
    const { done, pending } = await waitAny(tasks);
    expect(done).toEqual([tasks[1]]);
    expect(pending).toEqual([tasks[0]]);
    expect(await waitAny([])).toEqual({ done: [], pending: [] });
  });

  it('refuses bad options with what to pass', () => {
    const t = [after(1, 1)];
    expect(() => wait(t, { count: 2 })).toThrow(/count must be an integer from 0 to 1/);
    expect(() => wait(t, { count: 0.5 })).toThrow(ArgumentError);
    expect(() => wait(t, { timeoutMs: -1 })).toThrow(/timeoutMs must be a number/);
    expect(() => wait(t, { cuont: 1 } as never)).toThrow(
      /unknown option 'cuont'. Known options: count, timeoutMs/,
    );
    expect(() => waitAny(t, { count: 1 } as never)).toThrow(/use wait\(tasks, \{ count \}\)/);
  });
});

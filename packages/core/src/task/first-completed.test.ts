import { describe, expect, it } from 'vitest';
import { ArgumentError } from '../errors/errors.js';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { spawn } from '../registry/spawn.js';
import { after } from './__fixtures__/after.js';
import { asCompleted } from './as-completed.js';
import type { DTask } from './dtask.js';
import { wait, waitAny } from './wait-tasks.js';

const failAfter = (ms: number) =>
  spawn(async (m: number) => {
    await new Promise((r) => setTimeout(r, m));
    throw new Error('boom');
  }, ms);

/**
 * A task on this thread that ends (with `value`, or failing with 'boom') once `open()` is
 * called: tasks finish in the order the test opens them, whatever a loaded machine's timers do.
 */
function gated<T>(value: T, fail = false): { task: DTask<T>; open: () => void } {
  let open = () => {};
  const opened = new Promise<void>((resolve) => {
    open = resolve;
  });
  const task = spawn(async () => {
    await opened;
    if (fail) throw new Error('boom');
    return value;
  });
  return { task, open };
}

describe('asCompleted', () => {
  it('gives the same handles in finishing order, failed ones too', async () => {
    const [c, failing, a] = [gated('c'), gated('never', true), gated('a')];
    const tasks = [c.task, failing.task, a.task];
    // Each next one finishes once the one before it has been read.
    const next = [failing, c];
    a.open();
    const seen: unknown[] = [];
    for await (const { task, index } of asCompleted(tasks)) {
      expect(tasks[index]).toBe(task);
      seen.push(await task.fetch().catch((e: unknown) => e));
      next.shift()?.open();
    }
    expect(seen[0]).toBe('a');
    expect(seen[1]).toBeInstanceOf(DTaskFailedError);
    expect(seen[2]).toBe('c');
  });

  it('keeps the order from the call on, before the first read', async () => {
    const slow = gated(2);
    const fast = gated(1);
    const it = asCompleted([slow.task, fast.task]);
    // Both finish, fast first, before the first read.
    fast.open();
    await fast.task;
    slow.open();
    await slow.task;
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
    const [slow, a, b] = [gated('slow'), gated('a'), gated('b')];
    const tasks = [slow.task, a.task, b.task];
    const two = wait(tasks, { count: 2 });
    a.open();
    await a.task;
    b.open();
    const { done, pending } = await two;
    expect(done).toEqual([tasks[1], tasks[2]]);
    expect(pending).toEqual([tasks[0]]);
    slow.open();
    expect(await wait(tasks)).toEqual({ done: [tasks[1], tasks[2], tasks[0]], pending: [] });
  });

  it('returns what finished by the timeout, and never rejects for a failed task', async () => {
    // One that fails before the wait begins, one that never ends within it (it ends only when
    // the test lets it, after).
    const late = gated('never in time');
    const tasks = [late.task, failAfter(1)];
    await tasks[1].catch(() => {});
    const { done, pending } = await wait(tasks, { timeoutMs: 50 });
    expect(done).toEqual([tasks[1]]);
    expect(pending).toEqual([tasks[0]]);
    late.open();
    await late.task;
  });

  it('waitAny resolves with the first to finish', async () => {
    const [one, two] = [gated(1), gated(2)];
    const tasks = [one.task, two.task];
    const first = waitAny(tasks);
    two.open();
    const { done, pending } = await first;
    expect(done).toEqual([tasks[1]]);
    expect(pending).toEqual([tasks[0]]);
    one.open();
    await one.task;
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

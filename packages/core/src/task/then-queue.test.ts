// `DTask.then` settles through then-queue.ts: it must behave exactly like a promise's `then`.
import { describe, expect, it } from 'vitest';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { Context } from '../registry/context.js';

describe('DTask.then', () => {
  it('chains like a promise, passes values through missing callbacks, and runs callbacks later', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 20;
    });
    let called = false;
    const chained = t.then((x) => {
      called = true;
      return x + 1;
    });
    expect(called).toBe(false);
    expect(await chained.then((x) => x * 2)).toBe(42);
    expect(await t.then()).toBe(20);
    expect(await t.then(null, () => 'never')).toBe(20);
  });

  it('a failed task goes to onRejected, or rejects when there is none', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('boom');
    });
    const handled = t.then(
      () => 'never',
      (e) => (e as DTaskFailedError).cause,
    );
    await expect(t.then((x) => x)).rejects.toBeInstanceOf(DTaskFailedError);
    expect(((await handled) as Error).message).toBe('boom');
  });

  it('a callback that throws rejects the returned promise; a returned promise is followed', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 1;
    });
    await expect(
      t.then(() => {
        throw new Error('in callback');
      }),
    ).rejects.toThrow('in callback');
    expect(await t.then((x) => Promise.resolve(x + 1))).toBe(2);
  });

  it('awaiting a thousand pending tasks at once gives each its own value', async () => {
    await using ctx = new Context();
    const tasks = Array.from({ length: 1000 }, (_, i) => ctx.spawn((x: number) => x * 2, i));
    const values = await Promise.all(tasks);
    expect(values).toEqual(Array.from({ length: 1000 }, (_, i) => i * 2));
  });
});

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

  it('what then returns works as a promise even when used only after the task finished', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      await new Promise((r) => setTimeout(r, 5));
      return 3;
    });
    const later = t.then((x) => x * 2);
    expect(Object.prototype.toString.call(later)).toBe('[object Promise]');
    await t;
    await new Promise((r) => setTimeout(r, 5));
    expect(await later).toBe(6);
    let ran = false;
    expect(
      await later.finally(() => {
        ran = true;
      }),
    ).toBe(6);
    expect(ran).toBe(true);
    const failing = ctx.spawn(async () => {
      await new Promise((r) => setTimeout(r, 5));
      throw new Error('late');
    });
    const caught = failing.then((x) => x).catch((e) => (e as DTaskFailedError).cause);
    expect(((await caught) as Error).message).toBe('late');
  });

  it('a rejection nobody handles is reported as unhandled, as a native then would', async () => {
    await using ctx = new Context();
    const seen: unknown[] = [];
    const listen = (reason: unknown) => seen.push(reason);
    const others = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', listen);
    try {
      const t = ctx.spawn(async () => {
        await new Promise((r) => setTimeout(r, 5));
        throw new Error('nobody listens');
      });
      void t.then((x) => x); // no onRejected, and its result is dropped
      await t.wait();
      await new Promise((r) => setTimeout(r, 20));
      expect(seen).toHaveLength(1);
      expect(seen[0]).toBeInstanceOf(DTaskFailedError);
    } finally {
      process.off('unhandledRejection', listen);
      for (const l of others) process.on('unhandledRejection', l);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { ArgumentError, QueueFullError } from '../../errors/errors.js';
import { Context } from '../../registry/context.js';
import { spawn } from '../../registry/spawn.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => {
    open = r;
  });
  return { open, opened };
};

describe('maxQueue: backpressure on submission', () => {
  it('refuses a top-level spawn past maxQueue with QueueFullError, and takes it once there is room', async () => {
    await using ctx = new Context({ maxQueue: 3 });
    const g = gate();
    const held = [1, 2, 3].map((i) =>
      ctx.spawn(async (x: number) => {
        await g.opened;
        return x;
      }, i),
    );
    expect(ctx.queueSize).toBe(3);
    let error: unknown;
    try {
      ctx.spawn(() => 4);
    } catch (e) {
      error = e;
    }
    expect(QueueFullError.isInstance(error)).toBe(true);
    expect((error as QueueFullError).code).toBe('DTASK_QUEUE_FULL');
    expect((error as Error).message).toMatch(
      /holds 3 unfinished tasks, its maxQueue.*whenQueueHasRoom/,
    );
    let roomAt = -1;
    const room = ctx.whenQueueHasRoom().then(() => (roomAt = ctx.queueSize));
    await new Promise((r) => setTimeout(r, 10));
    expect(roomAt).toBe(-1); // still full
    g.open();
    await room;
    expect(roomAt).toBeLessThan(3);
    expect(await ctx.spawn(() => 4)).toBe(4);
    expect(await Promise.all(held)).toEqual([1, 2, 3]);
    expect(ctx.queueSize).toBe(0);
  });

  it('counts failed and cancelled tasks out, and never refuses a task spawned inside a task', async () => {
    await using ctx = new Context({ maxQueue: 1 });
    const parent = ctx.spawn(async () => {
      const inner = [1, 2, 3].map((i) => spawn((x: number) => x * 2, i));
      return Promise.all(inner);
    });
    expect(await parent).toEqual([2, 4, 6]);
    const failing = ctx.spawn(() => {
      throw new Error('no');
    });
    await failing.wait();
    const waiting = ctx.spawn(() => new Promise(() => {}));
    waiting.cancel();
    await waiting.wait();
    expect(ctx.queueSize).toBe(0);
    expect(await ctx.spawn(() => 'room')).toBe('room');
  });

  it('has no limit by default, and refuses a bad maxQueue', () => {
    const ctx = new Context();
    expect(() => ctx.whenQueueHasRoom()).not.toThrow();
    void ctx.close();
    expect(() => new Context({ maxQueue: 0 })).toThrow(ArgumentError);
    expect(() => new Context({ maxQueue: 2.5 })).toThrow(/maxQueue` must be a positive integer/);
  });
});

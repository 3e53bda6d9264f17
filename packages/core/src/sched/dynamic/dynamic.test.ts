import { describe, expect, it } from 'vitest';
import { ArgumentError, CancelledError, DynamicTaskError } from '../../errors/errors.js';
import { DTaskFailedError } from '../../errors/task-failed-error.js';
import { Context } from '../../registry/context.js';
import { spawn } from '../../registry/spawn.js';
import type { DTask } from '../../task/dtask.js';
import type { SchedulerState } from '../scheduler-state.js';
import { addThunk, exec, getDagIds, halt, type SchedulerHandle, schHandle } from './sch-handle.js';

/** What calling `f` produced: its value, or what it threw or rejected with. */
async function outcome(f: () => unknown): Promise<{ value?: unknown; error?: unknown }> {
  try {
    return { value: await f() };
  } catch (error) {
    return { error };
  }
}

/** Spawns a → {b, c} → d in `ctx`, with `body` as a's function; returns the four tasks. */
function diamond(ctx: Context, body: () => unknown) {
  const a = ctx.spawn(body);
  const b = ctx.spawn((x: unknown) => x, a);
  const c = ctx.spawn((x: unknown) => x, a);
  const d = ctx.spawn((x: unknown, y: unknown) => [x, y], b, c);
  return { a, b, c, d };
}

describe('dynamic scheduler control', () => {
  it('schHandle() outside a task is an ArgumentError', () => {
    expect(() => schHandle()).toThrow(ArgumentError);
    expect(() => getDagIds({} as SchedulerHandle)).toThrow(ArgumentError);
  });

  it('getDagIds from the root of a→{b,c}→d maps each task to its dependents', async () => {
    await using ctx = new Context();
    let seen: Map<number, Set<number>> | undefined;
    const { a, b, c, d } = diamond(ctx, () => {
      seen = getDagIds(schHandle());
      return 1;
    });
    expect(await d).toEqual([1, 1]);
    expect(seen).toEqual(
      new Map([
        [a.id, new Set([b.id, c.id])],
        [b.id, new Set([d.id])],
        [c.id, new Set([d.id])],
        [d.id, new Set()],
      ]),
    );
  });

  it("getDagIds lists finished upstream tasks, each with the dependents still waiting or running (Dagger's DAG querying)", async () => {
    await using ctx = new Context();
    const a = ctx.spawn((x: number) => x, 1);
    const b = ctx.spawn((x: number) => x + 2, a);
    const c = ctx.spawn((x: number) => x - 1, a);
    // a, b and c have finished when d runs: a's result is no longer needed (its set is
    // empty); b's and c's hold d, which is still running.
    const d = ctx.spawn((_x: number, _y: number) => [...getDagIds(schHandle())], b, c);
    expect(new Map(await d)).toEqual(
      new Map([
        [a.id, new Set()],
        [b.id, new Set([d.id])],
        [c.id, new Set([d.id])],
        [d.id, new Set()],
      ]),
    );
  });

  it('once a task has asked for a handle, getDagIds lists finished upstream tasks with handles however far up', async () => {
    await using ctx = new Context();
    await ctx.spawn(() => void schHandle()); // from here on, finished tasks keep weak references
    const a = ctx.spawn((x: number) => x, 1);
    const b = ctx.spawn((x: number) => x + 1, a);
    const c = ctx.spawn((x: number) => x + 1, b);
    const d = ctx.spawn((_x: number) => [...getDagIds(schHandle())], c);
    expect(new Map(await d)).toEqual(
      new Map([
        [a.id, new Set()],
        [b.id, new Set()],
        [c.id, new Set([d.id])],
        [d.id, new Set()],
      ]),
    );
  });

  it('before any handle, finished tasks keep their inputs by id: getDagIds lists those one level above the tasks it reaches', async () => {
    await using ctx = new Context();
    const a = ctx.spawn((x: number) => x, 1);
    const b = ctx.spawn((x: number) => x + 1, a);
    const c = ctx.spawn((x: number) => x + 1, b);
    // a, b and c have finished when d asks: c is d's input, b is known to c by id only.
    const d = ctx.spawn((_x: number) => [...getDagIds(schHandle())], c);
    expect(new Map(await d)).toEqual(
      new Map([
        [b.id, new Set()],
        [c.id, new Set([d.id])],
        [d.id, new Set()],
      ]),
    );
  });

  it('addThunk adds a task the handle can fetch and wait for', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      const h = schHandle();
      const x = addThunk(h, (n: number) => n * 2, 21);
      const upstream = spawn(() => 1);
      const y = addThunk(h, (n: number, m: number) => n + m, upstream, 2);
      await h.wait(y);
      return [typeof x, await h.fetch(x), await h.fetch(y), h.taskId];
    });
    const [kind, x, y, taskId] = await t;
    expect([kind, x, y]).toEqual(['number', 42, 3]);
    expect(taskId).toBe(t.id);
  });

  it('fetching its own id or a downstream task throws DynamicTaskError', async () => {
    await using ctx = new Context();
    const found: Record<string, unknown> = {};
    const ids: { b?: number; d?: number } = {};
    const { a, b, d } = diamond(ctx, async () => {
      const h = schHandle();
      found.self = (await outcome(() => h.fetch(h.taskId))).error;
      found.child = (await outcome(() => h.fetch(ids.b!))).error;
      found.grandchild = (await outcome(() => h.wait(ids.d!))).error;
      found.unknown = (await outcome(() => h.fetch(-5))).error;
      return 0;
    });
    ids.b = b.id;
    ids.d = d.id;
    await d;
    for (const key of ['self', 'child', 'grandchild']) {
      expect(DynamicTaskError.isInstance(found[key]), key).toBe(true);
      expect((found[key] as DynamicTaskError).code).toBe('DTASK_DYNAMIC');
    }
    expect((found.self as Error).message).toContain(String(a.id));
    expect(ArgumentError.isInstance(found.unknown)).toBe(true);
  });

  it('exec runs a function in the scheduler and resolves to its result', async () => {
    await using ctx = new Context();
    const t = ctx.spawn(async () => {
      const h = schHandle();
      return exec(h, (sch: SchedulerState) => [sch === ctx.scheduler, sch.slots.length]);
    });
    expect(await t).toEqual([true, 1]);
  });

  it('halt cancels the tasks the scheduler holds; later spawns still work', async () => {
    await using ctx = new Context();
    let never = false;
    const { a, b, c, d } = diamond(ctx, () => {
      halt(schHandle());
      return 'a';
    });
    const side = ctx.spawn((x: unknown) => {
      never = true;
      return x;
    }, d);
    for (const t of [a, b, c, d, side] as DTask<unknown>[]) {
      const e = await t.fetch().catch((x: unknown) => x);
      expect(DTaskFailedError.isInstance(e), `task #${t.id}`).toBe(true);
      expect(CancelledError.isInstance((e as DTaskFailedError).cause)).toBe(true);
    }
    expect(never).toBe(false);
    expect(await ctx.spawn(() => 'after halt')).toBe('after halt');
  });
});

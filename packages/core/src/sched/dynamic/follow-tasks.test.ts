import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';
import type { DTask } from '../../task/dtask.js';

describe('Context.followTasks', () => {
  it('tells of the unsettled tasks, those waiting on them, then each new one, until stopped', async () => {
    await using ctx = new Context();
    let open!: () => void;
    const gate = ctx.spawn(() => new Promise<void>((resolve) => (open = resolve)));
    const after = ctx.spawn((x: unknown) => x, gate);
    const done = ctx.spawn(() => 1);
    await done;
    const seen: DTask<unknown>[] = [];
    const stop = ctx.followTasks((t) => seen.push(t));
    expect(seen).toEqual([gate, after]); // oldest first; the settled one is not told
    const later = ctx.spawn(() => 2);
    expect(seen.at(-1)).toBe(later);
    stop();
    ctx.spawn(() => 3);
    expect(seen).toHaveLength(3);
    open();
    await Promise.all([after, later]);
  });

  it('followers chain: stopping one leaves the other following', async () => {
    await using ctx = new Context();
    const a: number[] = [];
    const b: number[] = [];
    const stopA = ctx.followTasks((t) => a.push(t.id));
    const stopB = ctx.followTasks((t) => b.push(t.id));
    stopA();
    const t = ctx.spawn(() => 0);
    expect(a).toEqual([]);
    expect(b).toEqual([t.id]);
    stopB();
    await t;
  });
});

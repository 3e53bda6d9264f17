import { describe, expect, it } from 'vitest';
import { Context } from '../../registry/context.js';
import type { DTask } from '../../task/dtask.js';
import { TaskFlags } from '../../task/task-state.js';
import { schHandle } from './sch-handle.js';
import { forEachInput } from './weak-inputs.js';

/** What `forEachInput` reports for `task`: live input tasks by id, and ids kept alone. */
function inputsOf(task: DTask<unknown>): { tasks: number[]; ids: number[] } {
  const tasks: number[] = [];
  const ids: number[] = [];
  forEachInput(
    task,
    (t) => tasks.push(t.id),
    (id) => ids.push(id),
  );
  return { tasks, ids };
}

describe('what a finished local task keeps of its inputs', () => {
  it('before any scheduler handle: the ids of its input tasks, in its own args, and no other value', async () => {
    await using ctx = new Context();
    const a = ctx.spawn(() => 1);
    const args: [DTask<number>, { big: string }, number] = [a, { big: 'value' }, 2];
    const b = ctx.spawn((x: number, _y: unknown, z: number) => x + z, ...args);
    const chain = ctx.spawn((x: number) => x + 1, b);
    expect(await chain).toBe(4);
    expect(b.args).toEqual([a.id, undefined, undefined]);
    expect(b.flags & TaskFlags.InputIds).toBe(TaskFlags.InputIds);
    expect(inputsOf(b)).toEqual({ tasks: [], ids: [a.id] });
    expect(inputsOf(a)).toEqual({ tasks: [], ids: [] }); // no input task: nothing kept
    expect(args[0]).toBe(a); // the caller's array is not the task's
  });

  it('once a task of the context has asked for a handle: weak references to them', async () => {
    await using ctx = new Context();
    await ctx.spawn(() => void schHandle());
    const a = ctx.spawn(() => 1);
    const b = ctx.spawn((x: number, y: number) => x + y, a, 5);
    expect(await b).toBe(6);
    expect(b.args[0]).toBeInstanceOf(WeakRef);
    expect(b.args[1]).toBeUndefined();
    expect(b.flags & TaskFlags.InputIds).toBe(0);
    expect(inputsOf(b)).toEqual({ tasks: [a.id], ids: [] });
  });

  it('an unfinished task reports its arguments that are tasks, never its numbers as ids', async () => {
    await using ctx = new Context();
    let open!: () => void;
    const gate = ctx.spawn(() => new Promise<void>((r) => (open = r)));
    const t = ctx.spawn((_g: unknown, n: number) => n, gate, 7);
    expect(inputsOf(t)).toEqual({ tasks: [gate.id], ids: [] });
    await new Promise((r) => setImmediate(r));
    open();
    expect(await t).toBe(7);
  });
});

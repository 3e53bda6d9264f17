// A group task with a handle per output (`spawnGroup`): the handles are pending at once and
// settle together with the group; each fetches its own output and works as an argument on any
// thread; the group failing or cancelled fails every handle; a lost worker runs the group again.
import { afterEach, describe, expect, it } from 'vitest';
import { ArgumentError, CancelledError } from '../errors/errors.js';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { ExactScope } from '../scope/exact-scope.js';
import { UnionScope } from '../scope/union-scope.js';
import { TaskState } from '../task/task-state.js';
import { collectUntil } from '../testing/collect-until.js';
import { type InMemoryRig, inMemoryRig } from '../testing/in-memory-rig.js';
import { Context } from './context.js';
import { spawnGroup } from './spawn-group.js';

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

/**
 * A group's function: `count` outputs, the `i`-th `[i * scale, id]` with `id` a mark of the
 * runtime that ran it (functions travel by source, so it marks its outputs with `groupParts`'
 * brand itself). Waits `ms` first.
 */
async function outputs(base: number, count: number, scale: number, ms: number) {
  if (ms > 0) await new Promise((resolve) => setTimeout(resolve, ms));
  const g = globalThis as { __runs?: number };
  g.__runs = (g.__runs ?? 0) + 1;
  return {
    [Symbol.for('dtask.groupParts')]: true,
    base,
    values: Array.from({ length: count }, (_, i) => [i * scale, i]),
  };
}

describe('spawnGroup', () => {
  it('returns a pending handle per output at once; each fetches its own output', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new ExactScope(rig.procs[0]);
    const handles = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 4, [4, 10, 5]);
    expect(handles).toHaveLength(4);
    expect(handles.every((h) => !h.isReady() && h.processor === rig.procs[0])).toBe(true);
    expect(await handles[2]).toEqual([20, 2]);
    expect(handles.every((h) => h.isReady())).toBe(true);
    expect(await Promise.all(handles.map((h) => h.fetch()))).toEqual([
      [0, 0],
      [10, 1],
      [20, 2],
      [30, 3],
    ]);
  });

  it('passes a pending output to a task on its own worker and on the other one', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new ExactScope(rig.procs[0]);
    const handles = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 3, [3, 10, 20]);
    const sum = (a: number[], b: number[]) => a[0] + a[1] + b[0];
    const here = rig.ctx.spawn({ scope }, sum, handles[1], handles[2]);
    const there = rig.ctx.spawn(
      { scope: new ExactScope(rig.procs[1]) },
      sum,
      handles[2],
      handles[2],
    );
    expect([await here, await there]).toEqual([11 + 20, 22 + 20]);
    expect(there.processor).toBe(rig.procs[1]);
  });

  it('gives the outputs themselves when the group runs on this thread', async () => {
    const ctx = new Context();
    try {
      const handles = spawnGroup<number[]>(ctx, {}, outputs, 2, [2, 3, 0]);
      expect(await handles[1]).toEqual([3, 1]);
      expect(await ctx.spawn((a: number[]) => a[0] + 1, handles[0])).toBe(1);
    } finally {
      await ctx.close();
    }
  });

  it('fails every handle, and what takes one, with the group as the root task', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new ExactScope(rig.procs[0]);
    const bad = (_base: number, k: number) => {
      throw new RangeError(`block ${k} is out of range`);
    };
    const handles = spawnGroup(rig.ctx, { scope, name: 'kernel' }, bad, 3, [1]);
    const dependent = rig.ctx.spawn((a: unknown) => a, handles[2]);
    for (const h of [...handles, dependent]) {
      const error = (await h.fetch().catch((e: unknown) => e)) as DTaskFailedError;
      expect(error).toBeInstanceOf(DTaskFailedError);
      expect(error.cause).toBeInstanceOf(RangeError);
      expect((error.cause as Error).message).toBe('block 1 is out of range');
      expect(error.rootTask.name).toBe('kernel');
    }
  });

  it("fails every handle when the group's function does not return its outputs", async () => {
    const rig = (current = inMemoryRig(2));
    const handles = spawnGroup(rig.ctx, {}, (base: number) => base, 2, []);
    const error = (await handles[0].fetch().catch((e: unknown) => e)) as DTaskFailedError;
    expect(String(error.cause)).toMatch(/must return groupParts\(base, values\)/);
  });

  it('cancels the group, and so every pending handle, when a handle is cancelled', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new ExactScope(rig.procs[0]);
    const handles = spawnGroup(rig.ctx, { scope }, outputs, 3, [3, 1, 200]);
    const dependent = rig.ctx.spawn((a: unknown) => a, handles[0]);
    expect(handles[1].cancel()).toBe(true);
    for (const h of [...handles, dependent]) {
      expect(h.isReady()).toBe(true);
      const error = (await h.fetch().catch((e: unknown) => e)) as DTaskFailedError;
      expect(error).toBeInstanceOf(DTaskFailedError);
      expect(error.cause).toBeInstanceOf(CancelledError);
    }
    const done = spawnGroup(rig.ctx, { scope }, outputs, 1, [1, 1, 0]);
    await done[0];
    expect(done[0].cancel()).toBe(false);
  });

  it('runs the group again, once for all its outputs, when its worker is lost after it finished', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new UnionScope(new ExactScope(rig.procs[0]), new ExactScope(rig.procs[1]));
    const g = globalThis as { __runs?: number };
    g.__runs = 0; // the rig's runtimes share this thread: every run of the group counts here
    const handles = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 3, [3, 7, 0]);
    await handles[0].wait();
    const lost = rig.procs.indexOf(handles[0].processor as (typeof rig.procs)[number]);
    expect(lost).toBeGreaterThanOrEqual(0);
    rig.links[lost].close();
    const other = rig.procs[1 - lost];
    const dependent = rig.ctx.spawn(
      (a: number[], b: number[]) => a[0] + b[0],
      handles[1],
      handles[2],
    );
    expect(await dependent).toBe(21);
    expect(handles.every((h) => h.state === TaskState.Done)).toBe(true);
    expect([handles[1].processor, handles[2].processor]).toEqual([other, other]);
    expect(await handles[0]).toEqual([0, 0]);
    expect(g.__runs).toBe(2);
  });

  it('runs the group again when its worker is lost while it runs', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new UnionScope(new ExactScope(rig.procs[0]), new ExactScope(rig.procs[1]));
    const handles = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 2, [2, 5, 80]);
    await new Promise((resolve) => setTimeout(resolve, 20));
    const busy = [...rig.ctx.scheduler.running.values()].map((t) => t.proc);
    rig.links[busy.includes(rig.procs[1]) ? 1 : 0].close();
    expect(await Promise.all(handles)).toEqual([
      [0, 0],
      [5, 1],
    ]);
  });

  it('copies the outputs of a chain of groups past the lineage depth here, and answers a loss with them', async () => {
    const rig = (current = inMemoryRig(2));
    rig.ctx.scheduler.lineageDepth = 2;
    const scope = new ExactScope(rig.procs[0]);
    const next = (base: number, prev: number[]) => ({
      [Symbol.for('dtask.groupParts')]: true,
      base,
      values: [prev.map((v) => v + 1)],
    });
    let h = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 1, [1, 1, 0])[0];
    const chain = [h];
    for (let i = 0; i < 3; i++)
      chain.push((h = spawnGroup<number[]>(rig.ctx, { scope }, next, 1, [h])[0]));
    await h.wait();
    expect(chain.map((t) => t.lineage)).toEqual([1, 2, 0, 1]);
    // The third's copy comes here (a fetch of its own): then a loss is answered with it.
    await new Promise((resolve) => setTimeout(resolve, 50));
    const g = globalThis as { __runs?: number };
    g.__runs = 0;
    rig.links[0].close();
    const after = rig.ctx.spawn(
      { scope: new ExactScope(rig.procs[1]) },
      (a: number[]) => a[0],
      chain[2],
    );
    expect(await after).toBe(2);
    expect(g.__runs).toBe(0); // not made again: the copy kept here
  });

  it('keeps a group of 300 outputs, whose keys and sizes pass the inline limit', async () => {
    const rig = (current = inMemoryRig(2));
    const scope = new ExactScope(rig.procs[0]);
    const handles = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 300, [300, 10, 0]);
    expect(await handles[299].fetch()).toEqual([2990, 299]);
    expect(await handles[150]).toEqual([1500, 150]);
  });

  it('releases the outputs together once no handle of the group is reachable', async () => {
    if (globalThis.gc === undefined) {
      console.log('skipped: run with --expose-gc to force the collection that releases them');
      return;
    }
    const rig = (current = inMemoryRig(2));
    const scope = new ExactScope(rig.procs[0]);
    const store = rig.runtimes[0].store;
    const kept = spawnGroup<number[]>(rig.ctx, { scope }, outputs, 3, [3, 10, 0]);
    await Promise.all(kept.map((h) => h.wait()));
    expect(store.size).toBe(3);
    // A handle kept: no output released (the one kept, nor the others).
    kept.splice(0, 2);
    for (let i = 0; i < 5; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(store.size).toBe(3);
    kept.length = 0;
    // No handle left: every output is released on the worker.
    expect(await collectUntil(() => store.size === 0)).toBe(true);
  });

  it('refuses a function that is not one, and a count that is not a whole number', () => {
    const ctx = new Context();
    expect(() => spawnGroup(ctx, {}, 5, 1, [])).toThrow(ArgumentError);
    expect(() => spawnGroup(ctx, {}, outputs, 0, [])).toThrow(/at least 1/);
    return ctx.close();
  });
});

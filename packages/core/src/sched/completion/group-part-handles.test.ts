// A group task's outputs kept on its worker each under its own key (`groupParts`), and finished
// handles for them made without the scheduler (`groupPartHandles`): each fetches its own output
// and works as an argument on its worker and on another one; the outputs are released together
// once no handle is reachable; a lost worker fails the handles with `WorkerLostError`.
import { afterEach, describe, expect, it } from 'vitest';
import { ArgumentError, WorkerLostError } from '../../errors/errors.js';
import { DTaskFailedError } from '../../errors/task-failed-error.js';
import { takeTaskIds } from '../../plugin.js';
import { ExactScope } from '../../scope/exact-scope.js';
import type { DTask } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';
import { type InMemoryRig, inMemoryRig } from '../../testing/in-memory-rig.js';
import type { WorkerConnection } from '../executors/worker-connection/worker-connection.js';
import { groupPartHandles } from './group-part-handles.js';

let current: InMemoryRig | undefined;
afterEach(async () => {
  await current?.ctx.close();
  current = undefined;
});

/**
 * A group task on the rig's first worker: `n` outputs, the `i`-th the array `[i, i * 10]`
 * (functions travel by source, so it marks its outputs with `groupParts`' brand itself).
 */
async function group(rig: InMemoryRig, n: number): Promise<{ task: DTask<unknown> }> {
  const task = rig.ctx.spawn(
    { scope: new ExactScope(rig.procs[0]) },
    (base: number, count: number) => ({
      [Symbol.for('dtask.groupParts')]: true,
      base,
      values: Array.from({ length: count }, (_, i) => [i, i * 10]),
    }),
    takeTaskIds(n),
    n,
  );
  await task.wait();
  return { task }; // not the task itself: awaiting a promise of a task would fetch its value
}

describe('groupPartHandles', () => {
  it('gives a finished handle per output, each fetching its own output', async () => {
    const rig = (current = inMemoryRig(2));
    const parts = groupPartHandles<number[]>((await group(rig, 4)).task);
    expect(parts).toHaveLength(4);
    expect(parts.every((p) => p.isReady() && p.processor === rig.procs[0])).toBe(true);
    expect(await Promise.all(parts.map((p) => p.fetch()))).toEqual([
      [0, 0],
      [1, 10],
      [2, 20],
      [3, 30],
    ]);
    expect(await parts[2]).toEqual([2, 20]);
  });

  it('keeps a group of 300 outputs, whose keys and sizes pass the inline limit', async () => {
    const rig = (current = inMemoryRig(2));
    const parts = groupPartHandles<number[]>((await group(rig, 300)).task);
    expect(parts).toHaveLength(300);
    expect(await parts[299].fetch()).toEqual([299, 2990]);
    expect(await parts[150]).toEqual([150, 1500]);
  });

  it('passes an output to a task on its own worker and on another one', async () => {
    const rig = (current = inMemoryRig(2));
    const parts = groupPartHandles<number[]>((await group(rig, 3)).task);
    const sum = (a: number[]) => a[0] + a[1];
    const here = rig.ctx.spawn({ scope: new ExactScope(rig.procs[0]) }, sum, parts[1]);
    const there = rig.ctx.spawn({ scope: new ExactScope(rig.procs[1]) }, sum, parts[2]);
    expect([await here, await there]).toEqual([11, 22]);
  });

  it('releases the outputs together once no handle of the group is reachable', async () => {
    if (globalThis.gc === undefined) {
      console.log('skipped: run with --expose-gc to force the collection that releases them');
      return;
    }
    const rig = (current = inMemoryRig(2));
    const { task } = await group(rig, 3);
    const kept = groupPartHandles(task);
    expect(() => groupPartHandles(task)).toThrow(/handed out already/);
    const { connection, key } = (kept[0] as unknown as { value: RemoteResult }).value.key as {
      connection: WorkerConnection;
      key: number;
    };
    /** Whether the worker still holds output `i`, asked by its key. */
    const held = (i: number) =>
      connection.fetch(key + i).then(
        () => 'held',
        (e: unknown) => (e as Error).message,
      );
    // A handle kept: no output released (the one kept, nor the others).
    for (let i = 0; i < 5; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(await Promise.all([0, 1, 2].map(held))).toEqual(['held', 'held', 'held']);
    expect(await kept[2].fetch()).toEqual([2, 20]);
    kept.length = 0;
    // No handle left: every output is released on the worker.
    let answers: string[] = [];
    for (let i = 0; i < 100; i++) {
      globalThis.gc();
      await new Promise((resolve) => setTimeout(resolve, 10));
      answers = await Promise.all([0, 1, 2].map(held));
      if (!answers.includes('held')) break;
    }
    expect(answers).toEqual([0, 1, 2].map((i) => `No result #${key + i} here`));
  });

  it("fails a lost worker's handles with WorkerLostError, and what takes one as an argument", async () => {
    const rig = (current = inMemoryRig(2));
    const parts = groupPartHandles<number[]>((await group(rig, 2)).task);
    rig.links[0].close();
    const error = await parts[0].fetch().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(WorkerLostError);
    expect((error as Error).message).toMatch(/spawn the group again/);
    const dependent = rig.ctx.spawn((a: number[]) => a[0], parts[1]);
    const failed = await dependent.fetch().catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(DTaskFailedError);
    expect(String((failed as DTaskFailedError).cause)).toMatch(/WorkerLostError|was lost/);
  });

  it('refuses a task that has not finished with groupParts outputs', async () => {
    const rig = (current = inMemoryRig(2));
    const plain = rig.ctx.spawn({ scope: new ExactScope(rig.procs[0]) }, () => 5);
    expect(() => groupPartHandles(plain)).toThrow(ArgumentError);
    await plain;
    expect(() => groupPartHandles(plain)).toThrow(/return groupParts\(base, values\)/);
  });
});

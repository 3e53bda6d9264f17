import { describe, expect, it } from 'vitest';
import type { Processor } from '../../processor/processor.js';
import { AnyScope } from '../../scope/index.js';
import type { DTask } from '../../task/dtask.js';
import { NO_OPTIONS } from '../../task/options.js';
import { RemoteResult } from '../../task/remote-result.js';
import { makeTask } from '../../task/spawn-task.js';
import { TaskState } from '../../task/task-state.js';
import { Scheduler } from '../scheduler.js';
import { resurrect } from './recompute.js';

const proc = { id: 'elsewhere' } as unknown as Processor;

/** A result held "elsewhere" that can be declared lost; `pulls` counts copies asked for. */
function holder() {
  const state = { lost: false, pulls: 0 };
  const make = (value: unknown) =>
    new RemoteResult(
      proc,
      () => {
        state.pulls++;
        return state.lost ? Promise.reject(new Error('gone')) : Promise.resolve(value);
      },
      2000,
      undefined,
      () => state.lost,
    );
  return { state, make };
}

describe('lineage depth (faults/lineage.ts)', () => {
  it('counts chains of worker-held results, keeps a copy past the depth and lets the lineage go', async () => {
    const s = new Scheduler();
    s.lineageDepth = 3;
    const h = holder();
    const chain: DTask<unknown>[] = [];
    for (let i = 0; i < 6; i++) {
      const t = makeTask(
        s,
        i + 1,
        (x: number) => x + 1,
        i === 0 ? [0] : [chain[i - 1]],
        NO_OPTIONS,
        NO_OPTIONS,
      );
      chain.push(t);
      s.submit(t);
      t.state = TaskState.Running;
      s.sink.completeRemote(t, h.make(i + 1));
    }
    expect(chain.map((t) => t.lineage)).toEqual([1, 2, 3, 0, 1, 2]);
    await new Promise((resolve) => setTimeout(resolve, 0));
    // The fourth result was copied here and its inputs let go; the others keep theirs.
    expect(h.state.pulls).toBe(1);
    expect(chain[3].args).toEqual([]);
    expect(chain[3].extra?.kept).toEqual({ value: 4 });
    expect(chain[4].args).toEqual([chain[3]]);
    // Its holder dies: the copy answers, nothing upstream runs again.
    h.state.lost = true;
    resurrect(s, chain[3]);
    expect(chain[3].state).toBe(TaskState.Done);
    expect(chain[3].value).toBe(4);
    expect(await chain[3].fetch()).toBe(4);
    // A task past the depth is recomputed from its lineage when no copy is kept.
    resurrect(s, chain[4]);
    expect(chain[4].state).not.toBe(TaskState.Done);
  });

  it('a result pinned by its resultScope is never copied; its dependents are', async () => {
    const s = new Scheduler();
    s.lineageDepth = 0;
    const h = holder();
    const pinned = makeTask(s, 1, () => 1, [], { resultScope: new AnyScope() }, NO_OPTIONS);
    s.submit(pinned);
    pinned.state = TaskState.Running;
    s.sink.completeRemote(pinned, h.make(1));
    const next = makeTask(s, 2, (x: number) => x, [pinned], NO_OPTIONS, NO_OPTIONS);
    s.submit(next);
    next.state = TaskState.Running;
    s.sink.completeRemote(next, h.make(1));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(pinned.extra?.kept).toBeUndefined();
    expect(pinned.lineage).toBe(1);
    expect(next.extra?.kept).toEqual({ value: 1 });
    expect(h.state.pulls).toBe(1);
  });

  it('a copy that cannot be made (its worker died first) leaves the lineage in place', async () => {
    const s = new Scheduler();
    s.lineageDepth = 0;
    const h = holder();
    h.state.lost = true;
    const t = makeTask(s, 1, () => 1, [], NO_OPTIONS, NO_OPTIONS);
    s.submit(t);
    t.state = TaskState.Running;
    s.sink.completeRemote(t, h.make(1));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(t.extra?.kept).toBeUndefined();
    expect(t.lineage).toBe(1);
  });
});

import { describe, expect, it } from 'vitest';
import { Chunk } from '../chunk/chunk.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { AnyScope } from '../scope/index.js';
import { scope } from '../scope/scope-builder.js';
import { DTask } from '../task/dtask.js';
import type { TaskOptions } from '../task/options.js';
import { TaskFlags } from '../task/task-state.js';
import { mayPlaceHere } from './local-placement.js';

const here = new ThreadProc(2, 1);
const owner = { remote: true } as never;
const task = (args: unknown[] = [], options: TaskOptions = {}, fn: unknown = () => 1) =>
  new DTask(owner, 1, fn, args, options, {});

describe('mayPlaceHere: which nested tasks a worker places itself', () => {
  it('plain values, the default scope or one containing this thread, light options: yes', () => {
    expect(mayPlaceHere(task([1, 'a', { x: [2] }]), here, owner)).toBe(true);
    expect(mayPlaceHere(task([], { scope: scope({ worker: 2 }), name: 'n' }), here, owner)).toBe(
      true,
    );
    expect(
      mayPlaceHere(task([], { computeScope: scope({ worker: 2, thread: 1 }) }), here, owner),
    ).toBe(true);
    expect(mayPlaceHere(task([], { occupancy: 0, priority: 3 }), here, owner)).toBe(true);
  });

  it('a scope without this thread (computeScope wins over scope): no', () => {
    expect(mayPlaceHere(task([], { scope: scope({ worker: 3 }) }), here, owner)).toBe(false);
    const both = { scope: scope({ worker: 2 }), computeScope: scope({ worker: 3 }) };
    expect(mayPlaceHere(task([], both), here, owner)).toBe(false);
  });

  it('options that need the scheduler: no', () => {
    for (const options of [
      { retries: 1 },
      { resultScope: new AnyScope() },
      { meta: true },
      { inPlace: true },
      { inPlaceArgs: [0] },
    ] as TaskOptions[]) {
      expect(mayPlaceHere(task([], options), here, owner), JSON.stringify(options)).toBe(false);
    }
  });

  it('a task placed here as an argument: yes; one the scheduler placed, or a Chunk: no', () => {
    const local = task();
    local.flags |= TaskFlags.Owned;
    expect(mayPlaceHere(task([local]), here, owner)).toBe(true);
    expect(mayPlaceHere(task([local]), here, {} as never), 'another owner').toBe(false);
    expect(mayPlaceHere(task([task()]), here, owner)).toBe(false);
    const chunk = new Chunk({ processor: here, fetch: async () => 1 }, new AnyScope());
    expect(mayPlaceHere(task([chunk]), here, owner)).toBe(false);
    expect(mayPlaceHere(task([], {}, chunk), here, owner), 'a Chunk as the function').toBe(false);
  });

  it('a streaming node: no', () => {
    const node = task();
    node.flags |= TaskFlags.Streaming;
    expect(mayPlaceHere(node, here, owner)).toBe(false);
    const driven = task();
    driven.extra = { notRerun: 'a streaming task' };
    expect(mayPlaceHere(driven, here, owner)).toBe(false);
  });
});

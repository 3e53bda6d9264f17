// A `mutable` on worker threads. Its tasks run where it lives and see each
// other's writes (a small state is not copied inline to the next task), `{ worker: 1 }` can be
// taken by default-scoped tasks once threads exist, and its scope does not drift after first use.
import * as core from '@dtask/core';
import {
  configure,
  ExactScope,
  mutable,
  ProcessScope,
  shutdown,
  spawn,
  ThreadProc,
} from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { threads } from './index.js';

// Self-contained task functions reach the API through the `dtask` global on every thread.
(globalThis as { dtask?: typeof core }).dtask = core;
declare const dtask: typeof core;

afterEach(async () => {
  await shutdown();
});

type Counter = { n: number; log: string[] };
const bump = (s: Counter) => {
  s.n++;
  s.log.push(dtask.taskProcessor().id);
  return s.n;
};

describe('mutable on worker threads', () => {
  it('each task sees the writes of the one before (the small state is not copied to it)', async () => {
    await configure({ plugins: [threads({ count: 2 })] }).ready();
    const m = mutable((): Counter => ({ n: 0, log: [] }));
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) seen.push(await spawn(bump, m));
    expect(seen).toEqual([1, 2, 3, 4]);
    const state = await m.fetch();
    expect(state.n).toBe(4);
    // All on the one thread it lives on, a worker thread (not the main thread).
    expect(new Set(state.log)).toEqual(new Set([m.processor.id]));
    expect(m.processor.id).toMatch(/^thread:1:[23]$/);
  });

  it('mutable(f, { worker: 1 }) is taken by default-scoped tasks once threads exist', async () => {
    await configure({ plugins: [threads({ count: 2 })] }).ready();
    const m = mutable((): Counter => ({ n: 0, log: [] }), { worker: 1 });
    expect(await spawn(bump, m)).toBe(1);
    expect(await spawn(bump, m)).toBe(2);
    expect(new ProcessScope(1).contains(m.processor)).toBe(true);
  });

  it('its scope is the one processor it lives on, before and after first use', async () => {
    await configure({ plugins: [threads({ count: 2 })] }).ready();
    const m = mutable((): Counter => ({ n: 0, log: [] }), { worker: 1 });
    const before = String(m.scope);
    const where = m.processor.id;
    await spawn(bump, m);
    await spawn(bump, m);
    expect(String(m.scope)).toBe(before);
    expect(m.processor.id).toBe(where);
    expect(m.scope).toEqual(new ExactScope(m.processor));
  });

  it('a mutable on the main thread (named explicitly) is used there, even by default-scoped tasks', async () => {
    await configure({ plugins: [threads({ count: 2 })] }).ready();
    const m = mutable((): Counter => ({ n: 0, log: [] }), { processor: new ThreadProc(1, 1) });
    expect(await spawn(bump, m)).toBe(1);
    expect(await spawn(bump, m)).toBe(2);
    expect((await m.fetch()).log).toEqual(['thread:1:1', 'thread:1:1']);
  });

  it('a mutable whose function closes over a local lives on the main thread, where it can run', async () => {
    await configure({ plugins: [threads({ count: 2 })], localClosures: 'allow' }).ready();
    const start = 10;
    const m = mutable((): Counter => ({ n: start, log: [] }));
    expect(m.processor.id).toBe('thread:1:1');
    expect(await spawn(bump, m)).toBe(11);
    expect(await spawn(bump, m)).toBe(12);
  });
});

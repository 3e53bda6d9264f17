// The connection's bookkeeping of results its worker holds: releases go out once per turn,
// never after the worker is lost, and a released result is no longer counted in host memory.
import { describe, expect, it, vi } from 'vitest';
import type { Batcher } from '../../../protocol/batcher.js';
import type { ToWorker } from '../../../protocol/protocol.js';
import type { DTask } from '../../../task/dtask.js';
import { HeldResults } from './held-results.js';

function held() {
  const sent: ToWorker[] = [];
  const out = { push: (m: ToWorker) => sent.push(m) } as unknown as Batcher<ToWorker>;
  const state = { lost: false };
  return { sent, state, results: new HeldResults(out, () => state.lost) };
}

describe('HeldResults', () => {
  it("sends one turn's releases in one message", async () => {
    const { sent, results } = held();
    results.release(1);
    results.release(2);
    expect(sent).toEqual([]);
    await Promise.resolve();
    expect(sent).toEqual([{ op: 'release', keys: [1, 2] }]);
    results.release(3);
    await Promise.resolve();
    expect(sent).toEqual([
      { op: 'release', keys: [1, 2] },
      { op: 'release', keys: [3] },
    ]);
  });

  it('releases nothing once the worker is lost, even what was released before in that turn', async () => {
    const { sent, state, results } = held();
    results.release(1);
    state.lost = true;
    results.release(2);
    await Promise.resolve();
    expect(sent).toEqual([]);
  });

  it('knows which results were moved to host memory until they are released', () => {
    const { results } = held();
    expect(results.isInHost({ key: 4 })).toBe(false);
    results.movedToHost([4, 5]);
    expect(results.isInHost({ key: 4 })).toBe(true);
    results.release(4);
    expect(results.isInHost({ key: 4 })).toBe(false);
    expect(results.isInHost({ key: 5 })).toBe(true);
  });

  it('lists each live task whose result the worker holds once, past many results and compactions', () => {
    const { results } = held();
    const tasks = Array.from({ length: 3000 }, (_, id) => ({ id }) as unknown as DTask<unknown>);
    for (let key = 0; key < tasks.length; key++) results.releaseWith(tasks[key], key);
    results.releaseWith(tasks[7], 3007); // the same task's result reported again
    const listed = [...results.tasks()];
    expect(listed).toHaveLength(3000);
    expect(new Set(listed)).toEqual(new Set(tasks));
  });

  it('walks its list of tasks only once half of them have been collected', async () => {
    const { sent, results } = held();
    const deref = vi.spyOn(WeakRef.prototype, 'deref');
    try {
      // Results kept: no walk, however long the list grows.
      const kept = Array.from({ length: 3000 }, (_, id) => ({ id }) as unknown as DTask<unknown>);
      for (let key = 0; key < kept.length; key++) results.releaseWith(kept[key], key);
      expect(deref).not.toHaveBeenCalled();
      // 3,000 more whose tasks are collected: once the finalizer has said so, the next result
      // walks the list and drops them, and the kept ones are still listed.
      const released = () =>
        (sent as { op?: string; keys?: number[] }[]).flatMap((m) =>
          m.op === 'release' ? (m.keys ?? []) : [],
        );
      ((count: number) => {
        for (let key = 3000; key < 3000 + count; key++) {
          results.releaseWith({ id: key } as unknown as DTask<unknown>, key);
        }
      })(3000);
      for (let i = 0; i < 100 && released().length < 3000; i++) {
        globalThis.gc?.();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      if (globalThis.gc === undefined) {
        console.log('skipped the collected half: run with --expose-gc to force a collection');
        return;
      }
      expect(released()).toHaveLength(3000);
      expect(deref).not.toHaveBeenCalled();
      results.releaseWith(kept[0], 6000);
      expect(deref).toHaveBeenCalled();
      expect(new Set(results.tasks())).toEqual(new Set(kept));
    } finally {
      deref.mockRestore();
    }
  });
});

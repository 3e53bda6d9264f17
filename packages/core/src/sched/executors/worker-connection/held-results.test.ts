// The connection's bookkeeping of results its worker holds: releases go out once per turn,
// never after the worker is lost, and a released result is no longer counted in host memory.
import { describe, expect, it } from 'vitest';
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
});

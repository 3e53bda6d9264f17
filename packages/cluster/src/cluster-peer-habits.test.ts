// What Dask, Ray and Piscina users reach for first, on real worker processes: retries,
// results as they finish (asCompleted, wait, waitAny) and map over an iterable. Needs the built
// dist (worker processes run dist/worker-main.js).
import { asCompleted, map, scope, wait, waitAny } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { sharedClusterRig } from './__fixtures__/rig.js';

declare const dtask: typeof import('@dtask/core');

describe('peer habits on worker processes', () => {
  // One cluster for the three tests: each looks only at its own tasks (the first counts its
  // tries in a worker process's global state, fresh there).
  const shared = sharedClusterRig();

  it('retries a task that throws on a worker process, and its dependent there gets the result', async () => {
    const r = shared();
    const [w] = r.plugin.processWorkers().map((p) => p.worker);
    const onW = { scope: scope({ worker: w }) };
    // A file-free counter that survives the throw: the worker process's global state.
    const flaky = (): [number, number] => {
      const g = globalThis as { tries?: number };
      g.tries = (g.tries ?? 0) + 1;
      if (g.tries < 3) throw new Error(`try ${g.tries}`);
      return [g.tries, dtask.currentWorker()];
    };
    const t = r.ctx.spawn({ ...onW, retries: 2 }, flaky);
    const dependent = r.ctx.spawn(onW, ([n]: [number, number]) => n * 10, t);
    expect(await dependent).toBe(30);
    expect(await t).toEqual([3, w]);
  });

  it('asCompleted, wait and waitAny follow tasks on worker processes', async () => {
    const r = shared();
    const nap = async (ms: number) => {
      await new Promise((res) => setTimeout(res, ms));
      return [ms, dtask.currentWorker()];
    };
    // The slow task takes the fast one's result first, so it finishes last however loaded the
    // machine (two naps alone, 200 ms and 1 ms on two worker processes, came back in the other
    // order at load 28): the tasks are given slow first, and finish fast first.
    const napAfter = async (_first: unknown, ms: number) => {
      await new Promise((res) => setTimeout(res, ms));
      return [ms, dtask.currentWorker()];
    };
    const fast = r.ctx.spawn(nap, 1);
    const tasks = [r.ctx.spawn(napAfter, fast, 200), fast];
    expect((await waitAny(tasks)).done).toEqual([tasks[1]]);
    const order = [];
    for await (const { task } of asCompleted(tasks)) order.push(await task);
    expect(order.map(([ms]) => ms)).toEqual([1, 200]);
    expect(order.every(([, worker]) => worker !== 1)).toBe(true);
    // Both finished before this call: they come in the order given.
    expect(await wait(tasks, { count: 2, timeoutMs: 10_000 })).toEqual({
      done: [tasks[0], tasks[1]],
      pending: [],
    });
  });

  it('map spreads items over the worker processes and keeps input order', async () => {
    const r = shared();
    const workers = new Set<number>();
    const out: number[] = [];
    for await (const [y, worker] of map(
      (x: number) => [x * x, dtask.currentWorker()] as const,
      Array.from({ length: 500 }, (_, i) => i),
      { context: r.ctx },
    )) {
      out.push(y);
      workers.add(worker);
    }
    expect(out).toEqual(Array.from({ length: 500 }, (_, i) => i * i));
    expect([...workers].every((w) => w !== 1)).toBe(true);
  });
});

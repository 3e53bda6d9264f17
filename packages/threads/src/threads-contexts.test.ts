// Two contexts, each with its own worker threads (whose processor ids are the same): a task of
// one takes a result the other's worker holds. The runtimes have no link to each other, so the
// value comes through the owning context; a lost one is recomputed there.
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { type Rig, rig, sharedInts } from './__fixtures__/harness.js';

const onThread = (thread: number) => ({ scope: scope({ worker: 1, thread }) });
const N = 50_000;

/** Thread `thread` of `r`'s context, ended from outside. */
const kill = (r: Rig, thread: number) =>
  r.plugin
    .threadWorkers()
    .find((w) => w.proc.id === `thread:1:${thread}`)!
    .worker.terminate();

describe('threads: inputs from another context', () => {
  it('a worker task takes a result held by another context’s worker (same thread ids)', async () => {
    const [a, b] = [await rig(), await rig()];
    const big = a.ctx.spawn(onThread(2), a.tasks.makeBig, N, 2);
    await big.wait();
    for (const thread of [2, 3]) {
      const [sum, length, where] = await b.ctx.spawn(onThread(thread), b.tasks.sumArray, big);
      expect([sum, length, where]).toEqual([2 * N, N, `thread:1:${thread}`]);
    }
    // On the calling thread too.
    const [sum] = await b.ctx.spawn(
      { scope: scope({ worker: 1, thread: 1 }) },
      b.tasks.sumArray,
      big,
    );
    expect(sum).toBe(2 * N);
  });

  it('a result lost with the other context’s worker is recomputed there', async () => {
    const [a, b] = [await rig(), await rig()];
    const runs = sharedInts(1);
    const big = a.ctx.spawn(onThread(2), a.tasks.makeBigCounted, runs, N, 3);
    await big.wait();
    await kill(a, 2);
    const [sum] = await b.ctx.spawn(onThread(3), b.tasks.sumArray, big);
    expect(sum).toBe(3 * N);
    expect(Atomics.load(runs, 0)).toBe(2);
    // It ran again in its own context: closing the other one loses nothing of it.
    await b.ctx.close();
    expect((await big).length).toBe(N);
    expect(Atomics.load(runs, 0)).toBe(2);
  });
});

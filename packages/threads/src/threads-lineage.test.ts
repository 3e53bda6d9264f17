// Lineage that does not grow forever, on real worker threads: a long
// pipeline whose results stay on the threads keeps a bounded number of tasks alive for
// recomputation, whatever its length, and a thread killed near the end still gives the exact
// result. Needs the built dist (worker threads load it).
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import type { DTask } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { type Rig, rig, until } from './__fixtures__/harness.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/**
 * One pipeline step (self-contained: it travels as source). Its 1,100 bytes are above the size
 * that comes back inline, so each result stays on the thread that made it.
 */
const step = (a: Uint8Array, b: Uint8Array, c: Uint8Array): Uint8Array => {
  const out = new Uint8Array(1100);
  for (let j = 0; j < 1100; j++) out[j] = (a[j] + 2 * b[j] + 3 * c[j] + j) & 255;
  return out;
};
const seed = (i: number): Uint8Array => new Uint8Array(1100).fill(i + 1);

/** Counts tasks collected (module-level: a registry that is itself collected calls nothing). */
const collected = new FinalizationRegistry<[Set<number>, number]>(([set, id]) => set.delete(id));

/** The thread holding `t`'s result. */
function holderOf(r: Rig, t: DTask<unknown>) {
  const id = (t as unknown as { proc: { id: string } }).proc.id;
  return r.plugin.threadWorkers().find((x) => x.proc.id === id)!;
}

/** The pipeline's last result, computed here. */
function expected(n: number): Uint8Array {
  const r = [seed(0), seed(1), seed(2)];
  for (let i = 3; i < n; i++) r.push(step(r[i - 1], r[i - 2], r[i - 3]));
  return r[n - 1];
}

/**
 * Runs an `n`-task pipeline (each task takes the previous three), dropping handles as it goes;
 * `killAt`: terminates thread 2 when that many tasks have been spawned. Returns the last task
 * and how many of the pipeline's tasks are still alive (not collected) at the end.
 */
async function pipeline(r: Rig, n: number, killAt = -1) {
  const alive = new Set<number>();
  let last: DTask<Uint8Array>[] = [];
  for (let i = 0; i < n; i++) {
    const t =
      i < 3
        ? r.ctx.spawn(seed, i)
        : r.ctx.spawn(step, last[last.length - 1], last[last.length - 2], last[last.length - 3]);
    alive.add(t.id);
    collected.register(t, [alive, t.id]);
    last = [...last.slice(-2), t];
    if (i === killAt) {
      await last[2].wait();
      await holderOf(r, last[2]).worker.terminate();
    }
    if (i % 500 === 499) await t.wait(); // wait, not fetch: the result stays on its thread
  }
  const end = last[2];
  await end.wait();
  last = [];
  for (let k = 0; k < 10; k++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 20)); // finalizers run after
  }
  return { end, alive: alive.size };
}

describe('threads: lineage kept for recomputation is bounded', () => {
  it('a 6,000-task pipeline keeps under a fixed number of tasks alive, like a 2,000-task one', async () => {
    const r = await rig();
    r.ctx.scheduler.lineageDepth = 16;
    const small = await pipeline(r, 2000);
    const large = await pipeline(r, 6000);
    // The depth (16) times the width (3), plus what is in flight: independent of the length.
    expect(small.alive).toBeLessThan(200);
    expect(large.alive).toBeLessThan(200);
    expect(await large.end).toEqual(expected(6000));
  });

  it('without the bound (depth Infinity, the old behaviour) the whole pipeline stays alive', async () => {
    const r = await rig();
    r.ctx.scheduler.lineageDepth = Number.POSITIVE_INFINITY;
    const { alive } = await pipeline(r, 2000);
    expect(alive).toBeGreaterThan(1900);
  });

  it('a thread killed near the end, and again after it, still gives the exact result', async () => {
    const r = await rig();
    r.ctx.scheduler.lineageDepth = 16;
    const n = 4000;
    const { end, alive } = await pipeline(r, n, n - 30);
    expect(alive).toBeLessThan(200);
    // Kill the thread again with the results made: the lost ones come from the copies kept
    // on this thread or are recomputed from the lineage that is left.
    const old = holderOf(r, end);
    await old.worker.terminate();
    await until(
      () => r.plugin.threadWorkers().some((x) => x.proc.id === old.proc.id && x !== old),
      10_000,
      'a replacement thread',
    );
    expect(await end).toEqual(expected(n));
    expect(r.ctx.scheduler.losses).toBeGreaterThan(0); // lost inputs were found and made again
  });
});

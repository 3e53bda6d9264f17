// What the scheduler keeps per finished, released task of a large graph on 2 worker processes:
// its heap after a full GC grows by well under 300 bytes per task between two sizes of the same
// graph (each task taking the three before it, run in waves whose handles are dropped). A bound
// on memory, not on time. Real worker processes from the built dist.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { clusterRig } from './__fixtures__/rig.js';
import { programsBuilt } from './__fixtures__/run-program.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** The heap after full collections, once what they freed is gone. */
async function settledHeap(): Promise<number> {
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 30));
  }
  return process.memoryUsage().heapUsed;
}

describe.skipIf(!programsBuilt)('a large graph on 2 worker processes', () => {
  it('keeps well under 300 bytes per finished, released task', async () => {
    await using r = await clusterRig({ workers: 2 });
    const inc = (x: number) => x + 1;
    const add = (a: number, b: number, c: number) => (a + b + c) % 1_000_003;
    /** A wave of `k` tasks, each taking the three before it; resolves to its last value. */
    const wave = async (k: number): Promise<number> => {
      const ts = [r.ctx.spawn(inc, 0), r.ctx.spawn(inc, 1), r.ctx.spawn(inc, 2)];
      for (let i = 3; i < k; i++) ts.push(r.ctx.spawn(add, ts[i - 1]!, ts[i - 2]!, ts[i - 3]!));
      return await ts[k - 1]!;
    };
    const expected = (k: number): number => {
      const v = [1, 2, 3];
      for (let i = 3; i < k; i++) v.push((v[i - 1]! + v[i - 2]! + v[i - 3]!) % 1_000_003);
      return v[k - 1]!;
    };
    const WAVE = 5_000;
    expect(await wave(WAVE)).toBe(expected(WAVE)); // warm: the JIT, the cost model, the links
    const before = await settledHeap();
    for (let i = 0; i < 4; i++) expect(await wave(WAVE)).toBe(expected(WAVE));
    const small = await settledHeap();
    for (let i = 0; i < 12; i++) expect(await wave(WAVE)).toBe(expected(WAVE));
    const large = await settledHeap();
    const perTask = (large - small) / (12 * WAVE);
    // Measured 5 bytes per task at 100,000 tasks; 300 is the bound.
    expect(perTask).toBeLessThan(300);
    expect(large - before).toBeLessThan(300 * 16 * WAVE);
  }, 120_000);
});

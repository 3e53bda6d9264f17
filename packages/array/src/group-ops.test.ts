// Element-wise operations as one group task per thread with a handle per output block: a plain
// node program on the built packages (2 worker threads) that reads blocks one by one and passes
// one to the other thread, exiting 0 without closing its context; and a worker process
// SIGKILLed while its groups run, or after they finished, with every element checked against
// the same work on the main thread: the lost groups run again, never a wrong element.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { type ClusterPlugin, cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { Blocks, distribute } from './index.js';

const here = dirname(fileURLToPath(import.meta.url));

/** How many elements of `got` differ from `want` (bit for bit). */
function differing(got: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(got.length).toBe(want.length);
  let n = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) n++;
  return n;
}

describe('element-wise groups in a plain node program', () => {
  it('reads every element, a block alone and a block on the other thread, and exits 0', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(here, '__fixtures__', 'group-ops-main.mjs')],
      { timeout: 60_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(result.wrong).toBe(0);
    expect(result.blocks).toBe(16);
    expect(result.block).toEqual([1, 3, 5]);
    expect(result.elsewhere).toBe(result.want);
    expect(result.on[0]).not.toBe(result.on[1]);
  }, 90_000);
});

describe('element-wise groups on 2 worker processes, one SIGKILLed', () => {
  let plugin: ClusterPlugin;
  let ctx: Context;
  beforeAll(async () => {
    plugin = cluster({ workers: 2 });
    ctx = new Context({ plugins: [plugin] });
    await ctx.ready();
  });
  afterAll(async () => {
    await ctx?.close();
  });

  /** SIGKILLs worker process `k` (0 or 1) of the two, whatever it is doing. */
  const kill = (k: number) => {
    const w = plugin.processWorkers()[k];
    process.kill(w.child!.pid!, 'SIGKILL');
  };

  it('after the groups finished: their blocks are made again, and what reads them is exact', async () => {
    for (const k of [0, 1]) {
      const x = random(61 * 45, 40 + k);
      const A = distribute(x, [61, 45], new Blocks(23, 17), { context: ctx });
      const B = A.mul(2).add(0.5);
      await Promise.all(B.chunks.map((c) => c.wait()));
      kill(k);
      const want = Float64Array.from(x, (v) => v * 2 + 0.5);
      // A later operation on B's handles, and B itself: made again either way.
      const C = B.sub(A);
      expect(
        differing(
          (await C.collect()).data,
          Float64Array.from(x, (v, i) => want[i] - v),
        ),
      ).toBe(0);
      expect(differing((await B.collect()).data, want)).toBe(0);
      await plugin.waitForWorkers(2);
    }
  }, 120_000);

  it('while the groups run: each runs again, and every element is exact', async () => {
    for (const k of [0, 1]) {
      const x = random(64 * 64, 50 + k);
      const A = distribute(x, [64, 64], new Blocks(16, 16), { context: ctx });
      await Promise.all(A.chunks.map((c) => c.wait()));
      // About 40 ms of work a thread: the kill lands while the groups run.
      const slow = A.map((v: number) => {
        const until = performance.now() + 0.02;
        while (performance.now() < until);
        return v * 3;
      });
      const done = slow.collect();
      await new Promise((resolve) => setTimeout(resolve, 15));
      kill(k);
      expect(
        differing(
          (await done).data,
          Float64Array.from(x, (v) => v * 3),
        ),
      ).toBe(0);
      await plugin.waitForWorkers(2);
    }
  }, 120_000);
});

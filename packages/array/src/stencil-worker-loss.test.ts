// A worker process SIGKILLed while an array lives on it, or mid-stencil: every element of what
// comes back is checked against the same work on the main thread. A block that was only made
// is made again from its lineage; a block written in place (a stencil's output, a step's
// array) cannot be (its lineage makes the data as it was before the writes), nor a block made
// from one before it was written (its lineage would read the data after the writes), so what
// reads them fails with WorkerLostError saying so: never a wrong element, never a hang.
import { type ClusterPlugin, cluster } from '@dtask/cluster';
import { Context } from '@dtask/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { Blocks, DArray, distribute, Pad, stencil, stencilSteps, Wrap } from './index.js';

type At = Record<string, (...o: number[]) => number>;

const jacobi = (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
const steps = [
  { out: 'B', kernel: jacobi },
  { out: 'A', kernel: (at: At) => at.B(0, 0) },
  { out: 'B', kernel: jacobi },
  { out: 'A', kernel: (at: At) => at.B(0, 0) },
];

/** How many elements of `got` differ from `want` (bit for bit). */
function differing(got: ArrayLike<number>, want: ArrayLike<number>): number {
  expect(got.length).toBe(want.length);
  let n = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) n++;
  return n;
}

describe('arrays on 2 worker processes, one SIGKILLed', () => {
  let plugin: ClusterPlugin;
  let ctx: Context;
  let here: Context;
  beforeAll(async () => {
    plugin = cluster({ workers: 2 });
    ctx = new Context({ plugins: [plugin] });
    here = new Context();
    await Promise.all([ctx.ready(), here.ready()]);
  });
  afterAll(async () => {
    await Promise.all([ctx?.close(), here?.close()]);
  });

  /** SIGKILLs worker process `k` (0 or 1) of the two, whatever it is doing. */
  const kill = (k: number) => {
    const w = plugin.processWorkers()[k];
    process.kill(w.child!.pid!, 'SIGKILL');
  };
  /** Both workers serve again (the one killed replaced). */
  const bothServe = () => plugin.waitForWorkers(2);

  it('a block held by the killed worker is made again from its lineage: collect() gives every element', async () => {
    for (const k of [0, 1]) {
      const x = random(61 * 45, 20 + k);
      const A = distribute(x, [61, 45], new Blocks(23, 17), { context: ctx });
      expect(differing((await A.collect()).data, x)).toBe(0); // its blocks on both workers
      kill(k);
      // Read while the worker's loss is being found out, or after: made again either way.
      expect(differing((await A.collect()).data, x)).toBe(0);
      await bothServe();
    }
  }, 120_000);

  it('a stencil and stencil steps with a worker killed as they run: every element as on the main thread, or WorkerLostError for data written in place', async () => {
    const outcomes: string[] = [];
    for (let round = 0; round < 4; round++) {
      const x = random(61 * 45, 30 + round);
      // The stencil reads an array of its own: the steps write theirs in place, and nothing
      // orders one call's reads before another call's writes (a task of the stencil run again
      // after the kill would read what the steps wrote since).
      const S = distribute(x, [61, 45], new Blocks(23, 17), { context: ctx });
      const A = distribute(x, [61, 45], new Blocks(23, 17), { context: ctx });
      const B = DArray.zeros([61, 45], new Blocks(23, 17), { context: ctx });
      const HA = distribute(x, [61, 45], new Blocks(23, 17), { context: here });
      const HB = DArray.zeros([61, 45], new Blocks(23, 17), { context: here });
      const want = (await stencil({ A: HA }, jacobi, { boundary: new Pad(0) }).collect()).data;
      await stencilSteps({ A: HA, B: HB }, steps, { boundary: new Wrap() });
      const wantSteps = (await HA.collect()).data;
      const once = stencil({ A: S }, jacobi, { boundary: new Pad(0) }).collect();
      const inPlace = stencilSteps({ A, B }, steps, { boundary: new Wrap() }).then(() =>
        A.collect(),
      );
      kill(round % 2);
      // Both awaited together: one of them rejecting while the other is awaited would be an
      // unhandled rejection (which ends a test process that shares it with a file whose
      // library rethrows uncaught errors, as tfjs's WebAssembly backend does).
      const settled = await Promise.allSettled([once, inPlace]);
      for (const [got, expected] of [
        [settled[0], want],
        [settled[1], wantSteps],
      ] as const) {
        if (got.status === 'fulfilled') {
          expect(differing(got.value.data, expected)).toBe(0);
          outcomes.push('exact');
        } else {
          // The only failures allowed: data written in place, lost with its worker; data read
          // from a block before it was written in place, lost with its worker; or a task writing
          // in place that was running there (none can be made again).
          expect((got.reason as Error).message).toMatch(
            /written in place .* lost with its worker|written in place after it was read|writes in place .* worker died while it ran/,
          );
          outcomes.push('lost');
        }
      }
      await bothServe();
    }
    expect(outcomes).toHaveLength(8);
  }, 180_000);
});

// Workers reuse the memory of released blocks that no one else reached (core's block pool,
// which `fusedBlockSimd` takes its blocks' memory from; its rules are tested in core's
// block-pool.test.ts): every element of a result made in reused memory is right, and blocks
// fetched home keep their values while later operations' blocks are made, released and made
// again in the same workers, on 2 real worker threads (where a fetched block shares the
// worker's memory) and 2 worker processes.
import { describe, expect, it } from 'vitest';
import { random } from './__fixtures__/reference.js';
import { describeOnRigs } from './__fixtures__/rig.js';
import { type Block, Blocks, distribute, setSmallWorkElements } from './index.js';

const gc = (globalThis as { gc?: () => void }).gc;

/** Lets the main thread collect what is dropped and its releases reach the workers. */
async function collect(): Promise<void> {
  for (let i = 0; i < 3; i++) {
    gc?.();
    await new Promise((r) => setTimeout(r, 5));
  }
}

if (!gc)
  console.warn(
    'block reuse tests skipped: they need node --expose-gc (vitest.config.ts passes it)',
  );

describe.runIf(gc)('released blocks reused', () => {
  describeOnRigs('on %s', (rig) => {
    it('blocks fetched home keep their values while released blocks are made again; every result right', async () => {
      const previous = setSmallWorkElements(0); // a task per block
      try {
        const n = 96;
        const x = random(n * n, 7);
        const a = distribute(x, [n, n], new Blocks(16, 16), { context: rig.context });
        // Fetched home once made: on threads these share the workers' memory. Copied at once.
        const fetched = await (async () => {
          const made = a.mul(3).chunks;
          await Promise.all(made.map((c) => c.wait()));
          return (await Promise.all(made)) as Block[];
        })();
        const copies = fetched.map((b) => Float64Array.from(b.data as Float64Array));
        expect(copies.reduce((s, c) => s + c.length, 0)).toBe(n * n);
        await collect(); // their tasks released: the workers must not reuse what was fetched
        for (let round = 0; round < 12; round++) {
          // Made, never read, dropped: their blocks go back to the workers' pools once released,
          // and the next rounds' blocks take them (more blocks a round than were released).
          await Promise.all(a.mul(round + 10).chunks.map((c) => c.wait()));
          if (round % 3 === 2) await collect();
        }
        // Blocks made in memory used before: every element right.
        const got = (await a.mul(5).collect()).data;
        let wrong = 0;
        for (let i = 0; i < n * n; i++) if (got[i] !== x[i] * 5) wrong++;
        expect(wrong).toBe(0);
        // What was fetched before is as it was.
        let changed = 0;
        fetched.forEach((b, k) => {
          for (let i = 0; i < copies[k].length; i++)
            if (!Object.is(b.data[i], copies[k][i])) changed++;
        });
        expect(changed).toBe(0);
      } finally {
        setSmallWorkElements(previous);
      }
    });
  });
});

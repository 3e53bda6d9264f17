// stencilSteps over this process's threads: one task per thread runs every step, the threads
// meeting at a barrier in shared memory between steps. A failing block stops the others, a
// thread that waits at the barrier keeps the program alive, and nothing is left running.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { threadsRig } from './__fixtures__/rig.js';
import { Blocks, DArray, Pad, stencilSteps } from './index.js';

const here = dirname(fileURLToPath(import.meta.url));
type At = Record<string, (...o: number[]) => number>;

describe('stencilSteps as one task per thread, meeting between steps', () => {
  it('a block failing in a middle step on one thread rejects the call; the other thread stops and the scheduler goes on', async () => {
    await using ctx = await threadsRig();
    const n = 128;
    const A = DArray.ones([n, n], new Blocks(32, 32), { context: ctx });
    const B = DArray.zeros([n, n], new Blocks(32, 32), { context: ctx });
    await Promise.all([...A.chunks, ...B.chunks].map((c) => c.wait()));
    // Blocks placed by default: the right half (columns 64…) is on the second thread.
    const ok = (at: At) => at.A(0, 0) + at.A(-1, 0);
    const far = (at: At, idx: readonly number[]) => at.B(idx[1] >= 100 ? 2 : 0, 0);
    const steps = [
      { out: 'B', kernel: ok },
      { out: 'A', kernel: far },
      { out: 'B', kernel: ok },
      { out: 'A', kernel: far },
    ];
    await expect(stencilSteps({ A, B }, steps)).rejects.toThrow(
      /offset 2 is not an integer within the radius 1/,
    );
    // The threads are free: a later call over the same arrays runs to its end.
    await stencilSteps({ A, B }, [{ out: 'B', kernel: (at: At) => at.A(0, 0) + 1 }]);
    const a = (await A.collect()).data;
    const b = (await B.collect()).data;
    expect(Array.from(b, (v, i) => v - a[i]).every((d) => d === 1)).toBe(true);
  });

  it('a padding value JSON cannot hold (NaN, ±Infinity, −0) reaches the threads as it is', async () => {
    await using ctx = await threadsRig();
    const n = 64;
    for (const value of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, -0]) {
      const A = DArray.ones([n, n], new Blocks(16, 16), { context: ctx });
      const B = DArray.zeros([n, n], new Blocks(16, 16), { context: ctx });
      await stencilSteps({ A, B }, [{ out: 'B', kernel: (at: At) => at.A(-1, 0) }], {
        boundary: new Pad(value),
      });
      const b = (await B.collect()).data;
      // Column-major: row 0 reads past the top edge, every other row reads a 1.
      for (let j = 0; j < n; j++) {
        expect(Object.is(b[j * n], value)).toBe(true);
        expect(b[j * n + 1]).toBe(1);
      }
    }
  });

  it('a program whose first thread waits at every barrier while the second computes exits 0 with the plain loop’s result', async () => {
    const { stdout } = await promisify(execFile)(
      process.execPath,
      [join(here, '__fixtures__', 'stencil-uneven.mjs')],
      { timeout: 120_000 },
    );
    const result = JSON.parse(stdout.trim().split('\n').pop() as string);
    expect(result).toEqual({ maxDiff: 0, tasks: 2 });
  }, 150_000);
});

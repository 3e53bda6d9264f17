// stencilSteps over this process's threads: one task per thread runs every step, the threads
// meeting at a barrier in shared memory between steps. A failing block stops the others, a
// thread that waits at the barrier keeps the program alive, and nothing is left running.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { rigForTest, threadsRig } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import { Blocks, DArray, Pad, stencilSteps, Wrap } from './index.js';

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
    const ctx = await rigForTest();
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

  it('calls laid out alike (new arrays, kernels written inline) reuse their plans and equal the steps one by one; a changed boundary or kernel plans anew', async () => {
    await using ctx = await threadsRig();
    const [m, n] = [40, 36];
    const blocks = new Blocks(10, 12);
    const pad = new Pad(0).spec();
    const wrap = new Wrap().spec();
    // Calls 0-2 are laid out alike; 3 changes the boundary, 4 one kernel's source.
    for (let call = 0; call < 5; call++) {
      const a0 = random(m * n, call + 1);
      const A = DArray.from({ data: a0, shape: [m, n] }, blocks, { context: ctx });
      const B = DArray.zeros([m, n], blocks, { context: ctx });
      // New function objects at every call, as a loop body writes them.
      const k1 = (at: At) => at.A(-1, 0) + 0.5 * at.A(0, 1);
      const k2 =
        call === 4 ? (at: At) => at.B(1, 0) - at.B(0, -1) : (at: At) => at.B(1, 0) + at.B(0, -1);
      const k3 = (at: At) => at.B(0, 0) - 0.25 * at.B(0, 1);
      // Repeated steps share a layout; the order is not a plain alternation.
      const steps = [
        { out: 'B', kernel: k1 },
        { out: 'A', kernel: k2 },
        { out: 'B', kernel: k1 },
        { out: 'A', kernel: k3 },
        { out: 'B', kernel: k1 },
        { out: 'A', kernel: k2 },
      ];
      const boundary = call === 3 ? new Wrap() : new Pad(0);
      await stencilSteps({ A, B }, steps, { boundary });
      const bc = call === 3 ? [wrap, wrap] : [pad, pad];
      const now: Record<'A' | 'B', { data: ArrayLike<number>; shape: number[] }> = {
        A: { data: a0, shape: [m, n] },
        B: { data: new Float64Array(m * n), shape: [m, n] },
      };
      for (const { out, kernel } of steps) {
        now[out as 'A' | 'B'] = {
          data: referenceStencil(now, { A: bc, B: bc }, kernel),
          shape: [m, n],
        };
      }
      expectClose((await A.collect()).data, now.A.data);
      expectClose((await B.collect()).data, now.B.data);
    }
  });

  it('two calls laid out alike at once, and a third on the first one’s arrays again, each equal to its own steps', async () => {
    await using ctx = await threadsRig();
    const [m, n] = [48, 40];
    const blocks = new Blocks(12, 10);
    const pad = new Pad(0).spec();
    const jacobiA = (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    const jacobiB = (at: At) => (at.B(-1, 0) + at.B(1, 0) + at.B(0, -1) + at.B(0, 1)) / 4;
    const steps: { out: string; kernel: (at: At) => number }[] = [];
    for (let s = 0; s < 8; s++) {
      steps.push(s % 2 === 0 ? { out: 'B', kernel: jacobiA } : { out: 'A', kernel: jacobiB });
    }
    const make = (seed: number) => {
      const a0 = random(m * n, seed);
      const A = DArray.from({ data: a0, shape: [m, n] }, blocks, { context: ctx });
      const B = DArray.zeros([m, n], blocks, { context: ctx });
      return { a0, A, B };
    };
    const expected = (a0: ArrayLike<number>) => {
      const now: Record<'A' | 'B', { data: ArrayLike<number>; shape: number[] }> = {
        A: { data: a0, shape: [m, n] },
        B: { data: new Float64Array(m * n), shape: [m, n] },
      };
      for (const { out, kernel } of steps) {
        now[out as 'A' | 'B'] = {
          data: referenceStencil(now, { A: [pad, pad], B: [pad, pad] }, kernel),
          shape: [m, n],
        };
      }
      return now;
    };
    // Each thread runs both calls' tasks, one waiting at its barrier while the other sweeps.
    const one = make(7);
    const two = make(8);
    await Promise.all([
      stencilSteps({ A: one.A, B: one.B }, steps, { boundary: new Pad(0) }),
      stencilSteps({ A: two.A, B: two.B }, steps, { boundary: new Pad(0) }),
    ]);
    const first = expected(one.a0);
    expectClose((await one.A.collect()).data, first.A.data);
    expectClose((await two.A.collect()).data, expected(two.a0).A.data);
    // The first call's arrays again, after another call's: its own memory, stepped on.
    await stencilSteps({ A: one.A, B: one.B }, steps, { boundary: new Pad(0) });
    expectClose((await one.A.collect()).data, expected(first.A.data).A.data);
    // What each thread keeps for the next call laid out alike (its block objects and what the
    // kernel prepared for them) holds none of the ended calls' memory.
    const holding = () => {
      const g = globalThis as any;
      let blocks = 0;
      let most = 0;
      for (const parsed of g.__dtaskSweepsJobs?.values() ?? []) {
        for (const block of parsed.kept?.blocks ?? []) {
          blocks++;
          most = Math.max(most, block.data.length);
          for (const p of g.__dtaskStencilPrepared?.get(block) ?? []) {
            for (const own of p.own) most = Math.max(most, own.length);
            for (const strip of p.strips) most = Math.max(most, strip.view.data.length);
          }
        }
      }
      return { blocks, most };
    };
    for (const thread of [2, 3]) {
      const kept = await ctx.spawn({ scope: scope({ worker: 1, thread }) }, holding);
      expect(kept.blocks).toBeGreaterThan(0);
      expect(kept.most).toBe(0);
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

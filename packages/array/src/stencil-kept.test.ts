// stencilSteps keeps each block a thread writes in that thread's SIMD memory for the next step
// of the same call, and lays the block out from there instead of reading it back from shared
// memory. Whatever reuses or overwrites what was kept (a later step writing into the place of
// a block it has read, two calls interleaving on the same threads at their barriers, other
// SIMD kernels running on the threads between steps), every result equals the plain reference.

import { type Context, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { threadsRig } from './__fixtures__/rig.js';
import { referenceStencil, type Whole } from './__fixtures__/stencil-reference.js';
import { Blocks, DArray, Pad, type StencilStep, stencilSteps } from './index.js';

type At = Record<string, (...o: number[]) => number>;

const pad = new Pad(0).spec();

/** The steps applied one by one with the plain reference, from `start`. */
function reference(start: Record<string, Whole>, steps: readonly StencilStep[]) {
  const now = { ...start };
  const bcs = Object.fromEntries(Object.keys(now).map((k) => [k, [pad, pad]]));
  for (const { out, kernel } of steps) {
    now[out] = {
      data: referenceStencil(now, bcs, kernel as (at: At, idx: number[]) => number),
      shape: now[out].shape,
    };
  }
  return now;
}

/** Per worker thread, how many elements of results it keeps in its SIMD memory now. */
async function keptOn(ctx: Context): Promise<number[]> {
  const kept = () => {
    const k = (globalThis as { __dtaskStencilKept?: { base: number; next: number } })
      .__dtaskStencilKept;
    return k === undefined ? 0 : k.next - k.base;
  };
  return Promise.all(
    [2, 3].map((thread) => ctx.spawn({ scope: scope({ worker: 1, thread }) }, kept).fetch()),
  );
}

describe('blocks kept in the SIMD memory between the steps of a call', () => {
  it('a block read again after its place held another step’s result, two kept inputs of one kernel, and a step the loop writes, equal the reference', async () => {
    await using ctx = await threadsRig();
    const [m, n] = [64, 48];
    const blocks = new Blocks(16, 16);
    const a0 = random(m * n, 7);
    const A = DArray.from({ data: a0, shape: [m, n] }, blocks, { context: ctx });
    const B = DArray.zeros([m, n], blocks, { context: ctx });
    const C = DArray.zeros([m, n], blocks, { context: ctx });
    const steps: StencilStep[] = [
      { out: 'B', kernel: (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, 1)) / 3 },
      // Reads B (kept): C's result takes B's place.
      { out: 'C', kernel: (at: At) => at.B(0, 0) - 0.5 * at.B(0, -1) },
      // Reads B again: its place now holds C, so B comes from shared memory.
      { out: 'A', kernel: (at: At) => at.B(1, 0) + 0.25 * at.B(0, 0) },
      // Two kept inputs in one kernel; then one reading the block it writes (no offset).
      { out: 'B', kernel: (at: At) => at.A(0, 0) * 0.5 + at.C(-1, 1) },
      { out: 'C', kernel: (at: At) => at.B(0, 0) + at.A(0, -1) - at.C(0, 0) },
      { out: 'A', kernel: (at: At) => (at.C(0, 0) + at.B(0, 1)) / 2 },
      { out: 'B', kernel: (at: At) => at.A(0, 1) * 2 },
      // A block body has no SIMD sweep: the loop writes B, and what was kept of B is dropped.
      {
        out: 'B',
        kernel: (at: At) => {
          return at.A(0, 0) - at.C(0, 0);
        },
      },
      { out: 'C', kernel: (at: At) => at.B(1, 0) + at.B(-1, 0) + 0.5 * at.B(0, 0) },
    ];
    await stencilSteps({ A, B, C }, steps, { boundary: new Pad(0) });
    // Each thread kept its blocks' results (so the steps above read them from there).
    for (const k of await keptOn(ctx)) expect(k).toBeGreaterThan(0);
    const want = reference(
      {
        A: { data: a0, shape: [m, n] },
        B: { data: new Float64Array(m * n), shape: [m, n] },
        C: { data: new Float64Array(m * n), shape: [m, n] },
      },
      steps,
    );
    expectClose((await A.collect()).data, want.A.data);
    expectClose((await B.collect()).data, want.B.data);
    expectClose((await C.collect()).data, want.C.data);
  });

  it('two calls at once on the same threads, with sums of other arrays running between their steps, each equal the reference', async () => {
    await using ctx = await threadsRig();
    const [m, n] = [64, 64];
    const blocks = new Blocks(16, 32);
    const fromA = (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    const fromB = (at: At) => (at.B(-1, 0) + at.B(1, 0) + at.B(0, -1) + at.B(0, 1)) / 4;
    const steps: StencilStep[] = [];
    for (let s = 0; s < 12; s++)
      steps.push(s % 2 === 0 ? { out: 'B', kernel: fromA } : { out: 'A', kernel: fromB });
    const starts = [random(m * n, 1), random(m * n, 2)];
    const arrays = starts.map((a0) => ({
      A: DArray.from({ data: a0, shape: [m, n] }, blocks, { context: ctx }),
      B: DArray.zeros([m, n], blocks, { context: ctx }),
    }));
    // Other SIMD kernels (whole-array sums, a task per block on the threads) keep running while
    // the calls wait at their barriers.
    const other = DArray.from(
      { data: random(256 * 256, 3), shape: [256, 256] },
      new Blocks(64, 64),
      {
        context: ctx,
      },
    );
    let running = true;
    const sums = (async () => {
      let k = 0;
      while (running) {
        await other.sum();
        k++;
      }
      return k;
    })();
    await Promise.all(arrays.map((a) => stencilSteps(a, steps, { boundary: new Pad(0) })));
    running = false;
    expect(await sums).toBeGreaterThan(0);
    for (const k of await keptOn(ctx)) expect(k).toBeGreaterThan(0);
    for (let c = 0; c < 2; c++) {
      const want = reference(
        {
          A: { data: starts[c], shape: [m, n] },
          B: { data: new Float64Array(m * n), shape: [m, n] },
        },
        steps,
      );
      expectClose((await arrays[c].A.collect()).data, want.A.data);
      expectClose((await arrays[c].B.collect()).data, want.B.data);
    }
  });
});

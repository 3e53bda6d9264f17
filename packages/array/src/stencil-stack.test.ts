// stencilSteps' blocks one below the other on a thread, swept as a stack (stencil-stack.ts): the
// same values as the JavaScript loop, bit for bit, for every boundary condition, radius 2,
// corners, two padded inputs, an input read in place and uneven blocks; and stacks are made.
import { Context, scope } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { threadsRig } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import {
  AntiReflect,
  Blocks,
  type Boundary,
  Clamp,
  DArray,
  LinearExtrapolate,
  Pad,
  // biome-ignore lint/suspicious/noShadowRestrictedNames: Dagger's name for the condition
  Reflect,
  stencilSteps,
  Wrap,
} from './index.js';
import { installSimd } from './simd-install.js';

type At = Record<string, (...o: number[]) => number>;
type Kernel = (at: At) => number;

const ALL: [string, Boundary][] = [
  ['Wrap', new Wrap()],
  ['Pad(2.5)', new Pad(2.5)],
  ['Reflect(true)', new Reflect(true)],
  ['Reflect(false)', new Reflect(false)],
  ['AntiReflect(false)', new AntiReflect(false)],
  ['Clamp', new Clamp()],
  ['LinearExtrapolate', new LinearExtrapolate()],
];

// Each kernel of B (from A and C) twice: an expression (a SIMD sweep, stacked) and the same as a
// block body (the JavaScript loop, block by block). The step after it writes A from B in place.
const KERNELS: [string, Kernel, Kernel][] = [
  [
    'Jacobi',
    (at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4,
    (at) => {
      return (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
    },
  ],
  [
    'corners and radius 2',
    (at) => at.A(-2, 0) * 0.5 + at.A(2, 1) - at.A(-1, -1) * at.A(1, 1) + at.A(0, -2) / 3,
    (at) => {
      return at.A(-2, 0) * 0.5 + at.A(2, 1) - at.A(-1, -1) * at.A(1, 1) + at.A(0, -2) / 3;
    },
  ],
  [
    'two padded inputs',
    (at) => at.A(-1, 0) - 0.25 * at.C(1, 0) + at.C(0, -1) * at.A(0, 1),
    (at) => {
      return at.A(-1, 0) - 0.25 * at.C(1, 0) + at.C(0, -1) * at.A(0, 1);
    },
  ],
];

const back: Kernel = (at) => at.B(0, 0) * 0.75 + at.C(0, 0) * 0.25;

/** Four steps of `kernel` and `back` over new arrays `m × n` in `blocks`: A's values. */
async function steps(
  context: Context,
  [m, n]: [number, number],
  blocks: Blocks,
  kernel: Kernel,
  boundary: Boundary,
) {
  const A = DArray.from({ data: random(m * n, 3), shape: [m, n] }, blocks, { context });
  const C = DArray.from({ data: random(m * n, 4), shape: [m, n] }, blocks, { context });
  const B = DArray.zeros([m, n], blocks, { context });
  const list = [];
  for (let s = 0; s < 2; s++) list.push({ out: 'B', kernel }, { out: 'A', kernel: back });
  // A kernel reading 2 away takes a radius of 2 (the others 1).
  const radius = kernel.toString().includes('(-2') ? 2 : 1;
  await stencilSteps({ A, B, C }, list, { boundary, radius });
  return (await A.collect()).data;
}

/** How many stacks this thread keeps for the sweeps of its kept jobs. */
function stacksHere(): number {
  const g = globalThis as {
    __dtaskSweepsJobs?: Map<string, { kept?: { fused: ({ units: unknown[] } | null)[] } }>;
  };
  let stacks = 0;
  for (const parsed of g.__dtaskSweepsJobs?.values() ?? []) {
    for (const f of parsed.kept?.fused ?? []) {
      for (const unit of f?.units ?? []) if (!Array.isArray(unit)) stacks++;
    }
  }
  return stacks;
}

const same = (got: ArrayLike<number>, want: ArrayLike<number>, what: string) => {
  let differ = 0;
  for (let i = 0; i < want.length; i++) if (!Object.is(got[i], want[i])) differ++;
  expect(`${what}: ${differ} of ${want.length} differ`).toBe(`${what}: 0 of ${want.length} differ`);
};

describe('stencilSteps with blocks stacked along dimension 0', () => {
  it('on this thread: every boundary, radius 2, corners, two padded inputs: the loop’s values, bit for bit', async () => {
    await using ctx = new Context();
    await ctx.ready();
    const before = stacksHere();
    for (const [name, simd, loop] of KERNELS) {
      for (const [bname, boundary] of ALL) {
        const fast = await steps(ctx, [64, 36], new Blocks(16, 12), simd, boundary);
        const plain = await steps(ctx, [64, 36], new Blocks(16, 12), loop, boundary);
        same(fast, plain, `${name}, ${bname}`);
      }
    }
    // The sweeps made stacks (kept with the jobs): each column of 4 blocks, in both layouts.
    expect(stacksHere()).toBeGreaterThan(before);
  }, 120_000);

  it('columns of an odd length (the SIMD copies’ last element past their vectors): the loop’s values, bit for bit', async () => {
    await using ctx = new Context();
    await ctx.ready();
    const g = globalThis as { __dtaskStencilStackSweeps?: number };
    const before = g.__dtaskStencilStackSweeps ?? 0;
    for (const [name, simd, loop] of KERNELS) {
      for (const [bname, boundary] of [ALL[0], ALL[1]]) {
        const fast = await steps(ctx, [52, 36], new Blocks(13, 12), simd, boundary);
        const plain = await steps(ctx, [52, 36], new Blocks(13, 12), loop, boundary);
        same(fast, plain, `${name}, ${bname}`);
      }
    }
    // Blocks of 13 rows swept in stacks (4 a column).
    expect((g.__dtaskStencilStackSweeps ?? 0) - before).toBeGreaterThan(0);
  }, 120_000);

  it('on 2 worker threads, uneven blocks (a shorter last block sweeps alone): the loop’s values and the plain steps’', async () => {
    await using ctx = await threadsRig();
    const shape: [number, number] = [70, 36];
    for (const [name, simd, loop] of KERNELS) {
      for (const [bname, boundary] of [ALL[0], ALL[2]]) {
        const fast = await steps(ctx, shape, new Blocks(16, 12), simd, boundary);
        const plain = await steps(ctx, shape, new Blocks(16, 12), loop, boundary);
        same(fast, plain, `${name}, ${bname}`);
      }
    }
    const stacks = await Promise.all(
      [2, 3].map((thread) => ctx.spawn({ scope: scope({ worker: 1, thread }) }, stacksHere)),
    );
    expect(stacks[0]).toBeGreaterThan(0);
    expect(stacks[1]).toBeGreaterThan(0);
    // Against the steps one by one in plain JavaScript.
    const [m, n] = shape;
    const bc = new Array(2).fill(new Wrap().spec());
    const now: Record<string, { data: ArrayLike<number>; shape: number[] }> = {
      A: { data: random(m * n, 3), shape },
      B: { data: new Float64Array(m * n), shape },
      C: { data: random(m * n, 4), shape },
    };
    for (let s = 0; s < 2; s++) {
      now.B = { data: referenceStencil(now, { A: bc, B: bc, C: bc }, KERNELS[0][1]), shape };
      now.A = { data: referenceStencil(now, { A: bc, B: bc, C: bc }, back), shape };
    }
    expectClose(await steps(ctx, shape, new Blocks(16, 12), KERNELS[0][1], ALL[0][1]), now.A.data);
  }, 120_000);

  it('a later call laid out alike, on new arrays, sweeps its stacks from its first step: the loop’s values', async () => {
    await using ctx = new Context();
    await ctx.ready();
    const g = globalThis as { __dtaskStencilStackSweeps?: number };
    const [simd, loop] = [KERNELS[2][1], KERNELS[2][2]];
    const first = await steps(ctx, [64, 36], new Blocks(16, 12), simd, ALL[1][1]);
    const plain = await steps(ctx, [64, 36], new Blocks(16, 12), loop, ALL[1][1]);
    same(first, plain, 'the first call');
    // The first call sweeps each layout's first step block by block (preparing the blocks),
    // the second step on as stacks; the second call, on new arrays, every step as stacks: each
    // of its 12 blocks in each of its 4 steps.
    const before = g.__dtaskStencilStackSweeps ?? 0;
    const again = await steps(ctx, [64, 36], new Blocks(16, 12), simd, ALL[1][1]);
    expect((g.__dtaskStencilStackSweeps ?? 0) - before).toBe(12 * 4);
    same(again, plain, 'the second call');
  }, 120_000);

  it('blocks of 4 KiB and more (staged and written by memcpy views, made again for new memory): a later call on new arrays, the loop’s values', async () => {
    await using ctx = new Context();
    await ctx.ready();
    const g = globalThis as { __dtaskStencilStackSweeps?: number };
    const [simd, loop] = [KERNELS[0][1], KERNELS[0][2]];
    const plain = await steps(ctx, [256, 16], new Blocks(64, 8), loop, ALL[1][1]);
    same(await steps(ctx, [256, 16], new Blocks(64, 8), simd, ALL[1][1]), plain, 'the first call');
    const before = g.__dtaskStencilStackSweeps ?? 0;
    const again = await steps(ctx, [256, 16], new Blocks(64, 8), simd, ALL[1][1]);
    expect((g.__dtaskStencilStackSweeps ?? 0) - before).toBe(8 * 4);
    same(again, plain, 'the second call');
  }, 120_000);

  it('a kept stack sweeps again after another kernel grew the SIMD memory (its views detached)', async () => {
    await using ctx = new Context();
    await ctx.ready();
    const [m, n] = [48, 24];
    const A = DArray.from({ data: random(m * n, 5), shape: [m, n] }, new Blocks(16, 12), {
      context: ctx,
    });
    const B = DArray.zeros([m, n], new Blocks(16, 12), { context: ctx });
    const [simd, loop] = [KERNELS[0][1], KERNELS[0][2]];
    const list = (kernel: Kernel) => [
      { out: 'B', kernel },
      { out: 'A', kernel: (at: At) => at.B(0, 0) },
      { out: 'B', kernel },
      { out: 'A', kernel: (at: At) => at.B(0, 0) },
    ];
    await stencilSteps({ A, B }, list(simd), { boundary: new Clamp() });
    const kernels = installSimd();
    expect(kernels).not.toBeNull();
    const grown = kernels as NonNullable<typeof kernels>;
    const buffer = grown.sweepArea(1).buffer;
    grown.sweepArea(buffer.byteLength / 8 + 1_000_000);
    expect(buffer.byteLength).toBe(0);
    await stencilSteps({ A, B }, list(simd), { boundary: new Clamp() });
    const fast = (await A.collect()).data;
    const A2 = DArray.from({ data: random(m * n, 5), shape: [m, n] }, new Blocks(16, 12), {
      context: ctx,
    });
    const B2 = DArray.zeros([m, n], new Blocks(16, 12), { context: ctx });
    await stencilSteps({ A: A2, B: B2 }, list(loop), { boundary: new Clamp() });
    await stencilSteps({ A: A2, B: B2 }, list(loop), { boundary: new Clamp() });
    same(fast, (await A2.collect()).data, 'after the growth');
  }, 120_000);
});

// Kernels exported by a module loaded with `everywhere` travel like task functions: one that
// uses its module's names runs where the module is loaded (2 worker threads and a worker
// process here), checked against the plain loop. A closure over a local is still an error at
// the call, naming it. Worker processes run the built dist: build first.
import { cluster } from '@dtask/cluster';
import {
  Context,
  disableLogging,
  enableLogging,
  everywhere,
  fetchLogs,
  scope,
  TaskFunctionError,
} from '@dtask/core';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import { Blocks, DArray, distribute, Pad, stencil, stencilSteps, Wrap } from './index.js';

type Kernel = (at: Record<string, (...o: number[]) => number>, idx: readonly number[]) => number;
const MODULE = new URL('./__fixtures__/stencil-module-kernels.mjs', import.meta.url);

describe('stencil kernels from a module loaded with everywhere', () => {
  it('run on 2 threads and a worker process, equal to the plain loop', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 }), cluster({ workers: 1 })] });
    await ctx.ready();
    await everywhere(MODULE, ctx);
    const kernels = (await import(MODULE.href)) as Record<string, Kernel>;
    const places = [
      scope({ worker: 1, thread: 2 }),
      scope({ worker: 1, thread: 3 }),
      scope({ worker: 2 }),
    ];
    const assign = ([i, j]: readonly number[]) => places[(i + 2 * j) % 3];
    const [m, n] = [29, 23];
    const x = random(m * n, 4);
    const y = random(m * n, 5);
    const A = distribute(x, [m, n], new Blocks(7, 6), { context: ctx, assign });
    const B = distribute(y, [m, n], new Blocks(7, 6), { context: ctx, assign });
    await Promise.all([...A.chunks, ...B.chunks].map((c) => c.wait()));
    const homes = new Set(A.chunks.map((c) => c.processor?.id));
    expect(homes).toEqual(new Set(['thread:1:2', 'thread:1:3', 'thread:2:1']));
    const wrap = [new Wrap().spec(), new Wrap().spec()];
    const pad = [new Pad(0).spec(), new Pad(0).spec()];
    const whole = (data: Float64Array) => ({ data, shape: [m, n] });
    enableLogging();
    let weighted: Float64Array;
    let mixed: Float64Array;
    let plain: Float64Array;
    try {
      weighted = (await stencil({ A }, kernels.weighted, { boundary: new Wrap() }).collect())
        .data as Float64Array;
      mixed = (await stencil({ A, B }, kernels.mixed).collect()).data as Float64Array;
      plain = (await stencil({ A }, kernels.plain).collect()).data as Float64Array;
    } finally {
      disableLogging();
    }
    expectClose(weighted, referenceStencil({ A: whole(x) }, { A: wrap }, kernels.weighted));
    expectClose(
      mixed,
      referenceStencil({ A: whole(x), B: whole(y) }, { A: pad, B: pad }, kernels.mixed),
    );
    expectClose(plain, referenceStencil({ A: whole(x) }, { A: pad }, kernels.plain));
    const ran = new Set(
      (fetchLogs() as unknown as { kind: string; name?: string; processor?: string }[])
        .filter((e) => e.kind === 'start' && e.name === 'stencilBlock')
        .map((e) => e.processor),
    );
    expect(ran).toEqual(homes);
    // In place, in steps: through datadeps (a worker process holds blocks).
    const C = DArray.zeros([m, n], new Blocks(7, 6), { context: ctx, assign });
    await stencilSteps(
      { A, C },
      [
        { out: 'C', kernel: kernels.weighted },
        { out: 'A', kernel: (at) => at.C(0, 0) },
      ],
      { boundary: new Wrap() },
    );
    expectClose((await A.collect()).data, weighted);
  });

  it('on threads only (shared memory, in steps), and a closure is still an error naming its variable', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 })] });
    await ctx.ready();
    await everywhere(MODULE, ctx);
    const kernels = (await import(MODULE.href)) as Record<string, Kernel>;
    const places = [scope({ worker: 1, thread: 2 }), scope({ worker: 1, thread: 3 })];
    const assign = ([i, j]: readonly number[]) => places[(i + j) % 2];
    const [m, n] = [40, 36];
    const x = random(m * n, 6);
    const A = distribute(x, [m, n], new Blocks(10, 9), { context: ctx, assign });
    const B = DArray.zeros([m, n], new Blocks(10, 9), { context: ctx, assign });
    await stencilSteps({ A, B }, [
      { out: 'B', kernel: kernels.weighted },
      { out: 'A', kernel: (at) => at.B(0, 0) },
      { out: 'B', kernel: kernels.weighted },
    ]);
    const pad = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    const once = referenceStencil({ A: { data: x, shape: [m, n] } }, pad, kernels.weighted);
    const twice = referenceStencil({ A: { data: once, shape: [m, n] } }, pad, kernels.weighted);
    expectClose((await B.collect()).data, twice);
    // An offset computed at run time is checked against the radius when it runs.
    await expect(stencil({ A }, kernels.shifted).collect()).rejects.toThrow(
      /offset 2 is not an integer within the radius 1/,
    );
    const shifted = await stencil({ A }, kernels.shifted, { radius: 2 }).collect();
    const pad2 = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    expectClose(
      shifted.data,
      referenceStencil(
        { A: { data: (await A.collect()).data, shape: [m, n] } },
        pad2,
        kernels.shifted,
      ),
    );
    const quarter = 0.25;
    expect(() => stencil({ A }, (at) => quarter * at.A(1, 0))).toThrow(TaskFunctionError);
    expect(() => stencil({ A }, (at) => quarter * at.A(1, 0))).toThrow(/quarter/);
  });
});

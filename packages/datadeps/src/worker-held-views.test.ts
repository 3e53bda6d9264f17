// Views and structured parts (seed 002, "Chunk Data": views, triangular views, views_overlap)
// of data the main thread, a worker thread or a worker process holds, written by tasks scoped
// to other workers: each task gets a copy of its part where it runs, and only that part is
// written back where the data lives, so tasks writing parts that do not overlap run at once
// without undoing each other's writes. Ordinary and shared memory; each equals the
// sequential program, read back where the data lives.
import { cluster } from '@dtask/cluster';
import { type AbstractScope, Context, type DTask, scope, withOptions } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Deps, In, InOut, Out } from './annotations.js';
import { unitLowerTriangular, upperTriangular } from './modifiers.js';
import { spawnDatadeps } from './spawn-datadeps.js';
import type { StridedView } from './strided-view.js';
import { view } from './view.js';

type Memory = 'ordinary' | 'shared';

declare const dtask: typeof import('@dtask/core');

const N = 300; // 2.4 KiB: stays on the worker that made it
const M = 20; // a 20 × 20 matrix, 3.2 KiB

/** The two worker processes' numbers, from the plugin once started (counted per test process). */
const processWorkers = [2, 3];
const HOMES: [string, () => AbstractScope, () => string][] = [
  ['the main thread', () => scope({ worker: 1, thread: 1 }), () => 'thread:1:1'],
  ['a worker thread', () => scope({ worker: 1, thread: 2 }), () => 'thread:1:2'],
  [
    'a worker process',
    () => scope({ worker: processWorkers[0] }),
    () => `thread:${processWorkers[0]}:1`,
  ],
];
const THREAD = () => scope({ worker: 1, thread: 3 });
const PROCESS = () => scope({ worker: processWorkers[1] });

/** A vector of `n` made on `home`: a DTask whose result stays there. */
function vectorOn(ctx: Context, home: AbstractScope, n: number, memory: Memory) {
  return ctx.spawn(
    { scope: home },
    (k: number, shared: boolean) =>
      shared ? new Float64Array(new SharedArrayBuffer(8 * k)) : new Float64Array(k),
    n,
    memory === 'shared',
  ) as DTask<Float64Array>;
}

/** An `m × m` row-major strided matrix made on `home`, `A[i][j] = i * m + j`. */
function matrixOn(ctx: Context, home: AbstractScope, m: number, memory: Memory) {
  return ctx.spawn(
    { scope: home },
    (k: number, shared: boolean) => {
      const data = shared
        ? new Float64Array(new SharedArrayBuffer(8 * k * k))
        : new Float64Array(k * k);
      for (let i = 0; i < k * k; i++) data[i] = i;
      return { data, shape: [k, k], strides: [k, 1], offset: 0 };
    },
    m,
    memory === 'shared',
  ) as DTask<StridedView<Float64Array>>;
}

/** The data as `home` holds it (a task there reads it in place). */
async function readOn(
  ctx: Context,
  h: DTask<Float64Array | { data: Float64Array }>,
  home: AbstractScope,
): Promise<unknown[]> {
  return (await ctx.spawn(
    { scope: home },
    (x: Float64Array | { data: Float64Array }) => [
      dtask.taskProcessor().id,
      ...Array.from(ArrayBuffer.isView(x) ? x : x.data),
    ],
    h,
  )) as unknown[];
}

describe('datadeps moves views of data held by a worker to tasks scoped elsewhere, and back', () => {
  let ctx: Context;
  beforeAll(async () => {
    const plugin = cluster({ workers: 2 });
    ctx = new Context({ plugins: [threads({ count: 3 }), plugin] });
    await ctx.ready();
    processWorkers.splice(0, 2, ...plugin.processWorkers().map((w) => w.worker));
  }, 120_000);
  afterAll(() => ctx?.close());

  for (const [where, home, id] of HOMES) {
    for (const memory of ['ordinary', 'shared'] as Memory[]) {
      it(`two halves of a vector held by ${where}, ${memory} memory, written on a thread and a process, then all of it: equals the sequential program`, async () => {
        const h = vectorOn(ctx, home(), N, memory);
        await h.wait();
        const half = N / 2;
        await spawnDatadeps(() => {
          ctx.spawn(
            { scope: THREAD() },
            (x: Float64Array) => {
              for (let i = 0; i < x.length; i++) x[i] = i + 1;
            },
            Out(view(h, [0, half])),
          );
          ctx.spawn(
            { scope: PROCESS() },
            (x: Float64Array) => {
              for (let i = 0; i < x.length; i++) x[i] = 1000 + i;
            },
            Out(view(h, [half, N])),
          );
          ctx.spawn(
            { scope: THREAD() },
            (x: Float64Array) => {
              for (let i = 0; i < x.length; i++) x[i] = x[i] * 10 + 1;
            },
            InOut(h),
          );
        });
        const expected = Array.from({ length: N }, (_, i) =>
          i < half ? (i + 1) * 10 + 1 : (1000 + i - half) * 10 + 1,
        );
        expect(await readOn(ctx, h, home())).toEqual([id(), ...expected]);
      }, 60_000);

      it(`a view of a vector held by ${where}, ${memory} memory, written in a region scoped to a worker process: equals the sequential program`, async () => {
        const h = vectorOn(ctx, home(), N, memory);
        await h.wait();
        let ran: DTask<string> | undefined;
        // The region's scope reaches neither the data nor, for the view, its slicing.
        await withOptions({ scope: PROCESS() }, () =>
          spawnDatadeps(() => {
            ran = ctx.spawn(
              (x: Float64Array) => {
                for (let i = 0; i < x.length; i++) x[i] = i + 7;
                return dtask.taskProcessor().id;
              },
              InOut(view(h, [10, 20])),
            ) as DTask<string>;
          }),
        );
        expect(await ran).toBe(`thread:${processWorkers[1]}:1`);
        const expected = Array.from({ length: N }, (_, i) => (i >= 10 && i < 20 ? i - 3 : 0));
        expect(await readOn(ctx, h, home())).toEqual([id(), ...expected]);
      }, 60_000);

      it(`the upper and the strict lower triangle of a matrix held by ${where}, ${memory} memory, written on a thread and on a process, then read: equals the sequential program`, async () => {
        const a = matrixOn(ctx, home(), M, memory);
        await a.wait();
        let sums: DTask<number> | undefined;
        await spawnDatadeps(() => {
          type Mat = StridedView<Float64Array>;
          ctx.spawn(
            { scope: THREAD() },
            (x: Mat) => {
              for (let i = 0; i < x.shape[0]; i++)
                for (let j = i; j < x.shape[1]; j++) x.data[x.offset + i * x.strides[0] + j] *= 2;
            },
            Deps(a, InOut(upperTriangular)),
          );
          ctx.spawn(
            { scope: PROCESS() },
            (x: Mat) => {
              for (let i = 0; i < x.shape[0]; i++)
                for (let j = 0; j < i; j++) x.data[x.offset + i * x.strides[0] + j] = -1;
            },
            Deps(a, InOut(unitLowerTriangular)),
          );
          sums = ctx.spawn(
            { scope: PROCESS() },
            (x: Mat) => x.data.reduce((s, v) => s + v, 0),
            In(a),
          ) as DTask<number>;
        });
        const expected: number[] = [];
        for (let i = 0; i < M; i++)
          for (let j = 0; j < M; j++) expected.push(j >= i ? 2 * (i * M + j) : -1);
        expect(await readOn(ctx, a, home())).toEqual([id(), ...expected]);
        expect(await sums).toBe(expected.reduce((s, v) => s + v, 0));
      }, 60_000);
    }
  }
});

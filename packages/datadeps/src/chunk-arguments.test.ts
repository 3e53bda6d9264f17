// Datadeps with `Chunk` and `DTask` arguments (Dagger's "Chunk Data" tests):
// writes through `InOut(chunk)`, `InOut(task)` and `InOut(view(chunk, …))` are not lost, on
// ordinary memory as on shared memory. Seed 002's add-to-copy, tree reduction and tiled
// Cholesky run on chunks and on tasks and equal the sequential program (the plain-array runs
// are in spawn-datadeps.test.ts and examples/examples.test.ts).
import { type Chunk, type Context, type DTask, isChunk } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { sharedRig } from './__fixtures__/harness.js';
import { addInto, cholesky, choleskySerial, spdMatrix, treeReduce } from './examples/index.js';
import { In, InOut, Out, spawnDatadeps } from './index.js';
import type { StridedView } from './strided-view.js';

type Holder<T> = Chunk<T> | DTask<T>;
type Memory = 'ordinary' | 'shared';
type Kind = 'Chunk' | 'DTask';

const spawnOn = (ctx: Context) => ctx.spawn.bind(ctx) as (...a: any[]) => unknown;

/** `n` doubles from `f`, in an ordinary or a shared buffer. */
function floats(memory: Memory, n: number, f: (i: number) => number): Float64Array {
  const x =
    memory === 'shared' ? new Float64Array(new SharedArrayBuffer(8 * n)) : new Float64Array(n);
  for (let i = 0; i < n; i++) x[i] = f(i);
  return x;
}

/**
 * `x` held as a chunk (made here, `toChunk`) or as a task's result (made on a worker thread,
 * where it stays: more than 1 KiB).
 */
function hold<T>(ctx: Context, kind: Kind, x: T): Holder<T> {
  return kind === 'Chunk' ? ctx.toChunk(x) : (ctx.spawn((v: T) => v, x) as DTask<T>);
}

/** The data a holder holds now. */
async function heldValue<T>(h: Holder<T>): Promise<T> {
  return isChunk(h) ? await h.fetch() : await h;
}

const cases: [Kind, Memory][] = [
  ['Chunk', 'ordinary'],
  ['Chunk', 'shared'],
  ['DTask', 'ordinary'],
  ['DTask', 'shared'],
];

describe('spawnDatadeps with Chunk and DTask arguments', () => {
  // Each test reads only what its own region wrote: one context serves them all.
  const rig = sharedRig();
  for (const [kind, memory] of cases) {
    it(`add-to-copy on ${kind} arguments, ${memory} memory: equals the sequential program`, async () => {
      const { ctx, k } = rig();
      const n = 200;
      const init = [1, 2, 3].map((s) => floats(memory, n, (i) => s * 1000 + i));
      const [a, b, c] = init.map((x) => x.slice());
      for (let i = 0; i < n; i++) {
        b[i] += a[i];
        c[i] += a[i];
        c[i] += b[i];
      }
      const [A, B, C] = init.map((x) => hold(ctx, kind, x));
      const D = hold(
        ctx,
        kind,
        floats(memory, n, () => 0),
      );
      await spawnDatadeps(() => {
        ctx.spawn(k.addInto, InOut(B), In(A));
        ctx.spawn(k.addInto, InOut(C), In(A));
        ctx.spawn(k.addInto, InOut(C), In(B));
        ctx.spawn(k.copyInto, Out(D), In(C));
      });
      expect([...(await heldValue(B))]).toEqual([...b]);
      expect([...(await heldValue(C))]).toEqual([...c]);
      expect([...(await heldValue(D))]).toEqual([...c]);
      expect([...(await heldValue(A))]).toEqual([...a]);
    });

    it(`tree reduction of 13 ${kind}s, ${memory} memory: equals the serial reduction`, async () => {
      const { ctx } = rig();
      const n = 150;
      const arrays = Array.from({ length: 13 }, (_, a) => floats(memory, n, (i) => a * n + i));
      const expected = new Float64Array(n);
      for (const x of arrays) for (let i = 0; i < n; i++) expected[i] += x[i];
      const holders = arrays.map((x) => hold(ctx, kind, x));
      await treeReduce(addInto as (x: unknown, y: unknown) => void, holders, spawnOn(ctx));
      expect([...(await heldValue(holders[0]))]).toEqual([...expected]);
    });

    it(`tiled Cholesky of a ${kind} through InOut(view(…)), ${memory} memory: equals the serial tile code`, async () => {
      const { ctx } = rig();
      const n = 48;
      const tile = 12;
      const original = spdMatrix(n, 7);
      const matrix: StridedView<Float64Array> = {
        ...original,
        data: floats(memory, n * n, (i) => original.data[i]),
      };
      const expected = { ...original, data: original.data.slice() };
      choleskySerial(expected, tile);
      const held = hold(ctx, kind, matrix);
      await cholesky(held as DTask<StridedView<Float64Array>>, tile, spawnOn(ctx), n);
      const got = await heldValue(held);
      expect(Array.from(got.data)).toEqual(Array.from(expected.data));
    });
  }
});

// Stencils over blocks on a worker thread and in a worker process (@dtask/cluster): results
// equal the plain reference, blocks stay where they live and only halo strips move between
// them (the logs' `move` events); on this process's threads nothing moves (neighbours are
// read in place in shared memory). Worker processes run the built dist: build first.
import { cluster } from '@dtask/cluster';
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { expectClose, random } from './__fixtures__/reference.js';
import { threadsRig } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import { Blocks, Clamp, DArray, distribute, Pad, stencil, stencilSteps, Wrap } from './index.js';

type At = Record<string, (...o: number[]) => number>;
const jacobi = (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
const copy = (at: At) => at.B(0, 0);

/** The bytes of the `move` events in `logs`, by the moved task's name ('block' for chunks). */
function movedBytes(logs: ReturnType<typeof fetchLogs>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of logs) {
    if (e.kind !== 'move') continue;
    const key = (e as { name?: string }).name ?? 'block';
    out[key] = (out[key] ?? 0) + ((e as { bytes?: number }).bytes ?? 0);
  }
  return out;
}

describe('stencils across worker threads and worker processes', () => {
  it('a worker thread and a worker process: equal to the reference, only halo strips move', async () => {
    const processes = cluster({ workers: 1 });
    await using ctx = new Context({ plugins: [threads({ count: 1 }), processes] });
    await ctx.ready();
    // Worker process numbers are counted per process (the `array` project's shared rigs take the
    // first ones): the worker process's own, from its plugin.
    const worker = processes.processWorkers()[0].worker;
    const places = [scope({ worker: 1, thread: 2 }), scope({ worker })];
    const assign = ([i, j]: readonly number[]) => places[(i + j) % 2];
    const [m, n] = [23, 17];
    const x = random(m * n, 21);
    const A = distribute(x, [m, n], new Blocks(6, 5), { context: ctx, assign });
    const B = DArray.zeros([m, n], new Blocks(6, 5), { context: ctx, assign });
    await Promise.all([...A.chunks, ...B.chunks].map((c) => c.wait()));
    const homes = A.chunks.map((c) => c.processor?.id);
    expect(new Set(homes)).toEqual(new Set(['thread:1:2', `thread:${worker}:1`]));
    const bcs = { A: [new Wrap().spec(), new Clamp().spec()] };
    const got = await stencil({ A }, jacobi, { boundary: [new Wrap(), new Clamp()] }).collect();
    expectClose(got.data, referenceStencil({ A: { data: x, shape: [m, n] } }, bcs, jacobi));
    enableLogging();
    fetchLogs(); // from an empty log: the process's earlier files may have logged
    try {
      await stencilSteps(
        { A, B },
        [
          { out: 'B', kernel: jacobi },
          { out: 'A', kernel: copy },
          { out: 'B', kernel: jacobi },
          { out: 'A', kernel: copy },
          { out: 'B', kernel: (at: At) => at.B(0, 0) * 2 }, // reads the block it writes
        ],
        { boundary: new Pad(0) },
      );
    } finally {
      disableLogging();
    }
    const moved = movedBytes(fetchLogs());
    let want: Float64Array = x;
    const pad = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    for (let s = 0; s < 2; s++)
      want = referenceStencil({ A: { data: want, shape: [m, n] } }, pad, jacobi);
    expectClose((await A.collect()).data, want);
    expectClose(
      (await B.collect()).data,
      want.map((v) => 2 * v),
    );
    expect(A.chunks.map((c) => c.processor?.id)).toEqual(homes); // blocks stay where they live
    // Only halo strips moved: no whole block, and only the face strips the kernel reads
    // (checkerboard: every face neighbour is elsewhere), 2 sweeps, 1 element deep both ways:
    // grid 4×4, 3 interfaces per dimension, each as long as the array's other side.
    expect(Object.keys(moved)).toEqual(['haloStrip']);
    const faceBytes = 2 * 2 * (3 * n + 3 * m) * 8;
    const strips = 2 * 2 * (3 * 4 + 3 * 4);
    expect(moved.haloStrip - faceBytes).toBeGreaterThanOrEqual(0);
    expect((moved.haloStrip - faceBytes) / strips).toBeLessThan(200); // each strip's small header
  });

  it('on 2 threads with 64 blocks, nothing moves: a task per thread for all steps reads its neighbours in place', async () => {
    await using ctx = await threadsRig();
    const places = [scope({ worker: 1, thread: 2 }), scope({ worker: 1, thread: 3 })];
    const assign = ([i, j]: readonly number[]) => places[(i + j) % 2];
    const [n, b] = [256, 32];
    const x = random(n * n, 3);
    const A = distribute(x, [n, n], new Blocks(b, b), { context: ctx, assign });
    const B = DArray.zeros([n, n], new Blocks(b, b), { context: ctx, assign });
    await Promise.all([...A.chunks, ...B.chunks].map((c) => c.wait()));
    const homes = A.chunks.map((c) => c.processor?.id);
    enableLogging();
    fetchLogs(); // from an empty log: the process's earlier files may have logged
    try {
      await stencilSteps({ A, B }, [
        { out: 'B', kernel: jacobi },
        { out: 'A', kernel: copy },
      ]);
    } finally {
      disableLogging();
    }
    const logs = fetchLogs();
    // Checkerboard: every face neighbour is on the other thread, and still nothing moves.
    expect(movedBytes(logs)).toEqual({});
    expect(stepTasks(logs)).toEqual({ 'thread:1:2': 1, 'thread:1:3': 1 });
    expect(A.chunks.map((c) => c.processor?.id)).toEqual(homes);
    const pad = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    expectClose(
      (await A.collect()).data,
      referenceStencil({ A: { data: x, shape: [n, n] } }, pad, jacobi),
    );
  });

  it('blocks placed by default: two halves by columns, a task per thread for all steps, nothing moves', async () => {
    await using ctx = await threadsRig();
    const [n, b] = [256, 32];
    const x = random(n * n, 8);
    const A = distribute(x, [n, n], new Blocks(b, b), { context: ctx });
    const B = DArray.zeros([n, n], new Blocks(b, b), { context: ctx });
    await Promise.all([...A.chunks, ...B.chunks].map((c) => c.wait()));
    // The default placement: block columns 0–3 on one thread, 4–7 on the other.
    const homes = A.chunks.map((c) => c.processor?.id);
    expect(homes.slice(0, 32).every((h) => h === homes[0])).toBe(true);
    expect(homes.slice(32).every((h) => h === homes[32])).toBe(true);
    expect(new Set(homes)).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    expect(B.chunks.map((c) => c.processor?.id)).toEqual(homes);
    enableLogging();
    fetchLogs(); // from an empty log: the process's earlier files may have logged
    try {
      await stencilSteps({ A, B }, [
        { out: 'B', kernel: jacobi },
        { out: 'A', kernel: copy },
      ]);
    } finally {
      disableLogging();
    }
    const logs = fetchLogs();
    expect(movedBytes(logs)).toEqual({});
    expect(stepTasks(logs)).toEqual({ 'thread:1:2': 1, 'thread:1:3': 1 });
    const pad = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    expectClose(
      (await A.collect()).data,
      referenceStencil({ A: { data: x, shape: [n, n] } }, pad, jacobi),
    );
  });
});

/** How many step tasks (`stencilSweeps`, a thread's blocks over all steps) ran on each processor. */
function stepTasks(logs: ReturnType<typeof fetchLogs>): Record<string, number> {
  const out: Record<string, number> = {};
  for (const e of logs) {
    if (e.kind !== 'finish' || (e as { name?: string }).name !== 'stencilSweeps') continue;
    const p = (e as { processor?: string }).processor as string;
    out[p] = (out[p] ?? 0) + 1;
  }
  return out;
}

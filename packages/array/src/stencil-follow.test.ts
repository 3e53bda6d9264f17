// Stencil block tasks run where their block lives also when the blocks are still being made
// (a `stencil` called at once after `DArray.rand`), and after `collect()` (which reads the
// blocks where they are, without taking them to the main thread). Real worker threads.
import { disableLogging, enableLogging, fetchLogs } from '@dtask/core';
import { describe, expect, it } from 'vitest';
import { expectClose } from './__fixtures__/reference.js';
import { threadsRig } from './__fixtures__/rig.js';
import { referenceStencil } from './__fixtures__/stencil-reference.js';
import { Blocks, DArray, Pad, stencil } from './index.js';

type At = Record<string, (...o: number[]) => number>;
const jacobi = (at: At) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
const MAIN = 'thread:1:1';

/** Per task id, the processor its `start` event names; and the names of the moved tasks. */
function runs(logs: ReturnType<typeof fetchLogs>) {
  const where = new Map<number, string>();
  const names = new Map<number, string>();
  const moved = new Set<string>();
  for (const e of logs as unknown as {
    kind: string;
    task?: number;
    name?: string;
    processor?: string;
  }[]) {
    if (e.kind === 'start' && e.task !== undefined) {
      where.set(e.task, String(e.processor));
      names.set(e.task, String(e.name));
    }
    if (e.kind === 'move') moved.add(e.name ?? 'block');
  }
  return { where, names, moved };
}

describe('stencil tasks follow their blocks', () => {
  it('over an array still being made on 2 threads: each block task runs where its block is made', async () => {
    await using ctx = await threadsRig();
    const [n, b] = [256, 32];
    enableLogging();
    let A: DArray;
    let B: DArray;
    try {
      A = DArray.rand([n, n], new Blocks(b, b), { context: ctx, seed: 5 });
      B = stencil({ A }, jacobi); // at once: no block of A is placed yet
      expect(A.chunks.every((c) => c.processor === undefined)).toBe(true);
      await Promise.all(B.chunks.map((c) => c.wait()));
    } finally {
      disableLogging();
    }
    const { where, names, moved } = runs(fetchLogs());
    const homes = A.chunks.map((c) => where.get(c.id));
    expect(new Set(homes)).toEqual(new Set(['thread:1:2', 'thread:1:3']));
    expect(B.chunks.map((c) => where.get(c.id))).toEqual(homes);
    const onMain = [...where].filter(([, p]) => p === MAIN).map(([id]) => names.get(id));
    expect(onMain).toEqual([]);
    expect([...moved]).toEqual(['haloStrip']); // no whole block moved
    const x = (await A.collect()).data;
    const pad = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    expectClose(
      (await B.collect()).data,
      referenceStencil({ A: { data: x, shape: [n, n] } }, pad, jacobi),
    );
  });

  it('after collect(): blocks still report their thread, and a later stencil runs there', async () => {
    await using ctx = await threadsRig();
    const [n, b] = [128, 32];
    const A = DArray.rand([n, n], new Blocks(b, b), { context: ctx, seed: 9 });
    await Promise.all(A.chunks.map((c) => c.wait()));
    const homes = A.chunks.map((c) => c.processor?.id);
    expect(homes.includes(MAIN)).toBe(false);
    const x = (await A.collect()).data;
    expect(A.chunks.map((c) => c.processor?.id)).toEqual(homes);
    enableLogging();
    let B: DArray;
    try {
      B = stencil({ A }, jacobi);
      await Promise.all(B.chunks.map((c) => c.wait()));
    } finally {
      disableLogging();
    }
    const { where } = runs(fetchLogs());
    expect(B.chunks.map((c) => where.get(c.id))).toEqual(homes);
    const pad = { A: [new Pad(0).spec(), new Pad(0).spec()] };
    expectClose(
      (await B.collect()).data,
      referenceStencil({ A: { data: x, shape: [n, n] } }, pad, jacobi),
    );
    // Collecting again reads the same values (nothing was taken away from the threads).
    expectClose((await A.collect()).data, x);
  });
});

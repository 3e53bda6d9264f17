// Mixed placement: chunks on a worker thread of this process and on a worker process
// (@dtask/cluster); the operations work across them and equal the plain reference. Worker
// processes run the built dist: build before running this test.

import { cluster } from '@dtask/cluster';
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import {
  choleskyPlain,
  expectClose,
  matmul,
  random,
  reduceDims,
  slice2,
  spd,
  transpose,
} from './__fixtures__/reference.js';
import { Blocks, cholesky, DArray, distribute } from './index.js';

describe('DArray across worker threads and worker processes', () => {
  it('blocks alternate between thread:1:2 and the worker process; operations equal the reference', async () => {
    const processes = cluster({ workers: 1 });
    await using ctx = new Context({ plugins: [threads({ count: 1 }), processes] });
    await ctx.ready();
    // Worker process numbers are counted per process (the `array` project's shared rigs take the
    // first ones): the worker process's own, from its plugin.
    const worker = processes.processWorkers()[0].worker;
    const onProcess = `thread:${worker}:1`;
    expect(ctx.processors().map((p) => p.id)).toEqual(
      expect.arrayContaining(['thread:1:2', onProcess]),
    );
    const places = [scope({ worker: 1, thread: 2 }), scope({ worker })];
    const assign = ([i, j]: readonly number[]) => places[(i + j) % 2];
    const [m, k, n] = [21, 17, 13];
    const x = random(m * k, 11);
    const y = random(k * n, 12);
    const a = distribute(x, [m, k], new Blocks(5, 4), { context: ctx, assign });
    const b = distribute(y, [k, n], new Blocks(4, 6), { context: ctx, assign });
    await Promise.all([...a.chunks, ...b.chunks].map((c) => c.wait()));
    const homes = new Set(a.chunks.map((c) => c.processor?.id));
    expect(homes).toEqual(new Set(['thread:1:2', onProcess]));
    expectClose((await a.matmul(b).collect()).data, matmul(x, y, m, k, n));
    expectClose((await a.transpose().collect()).data, transpose(x, m, k));
    expectClose(
      (
        await a
          .add(a.map((v) => v * v))
          .sum({ dims: [0] })
          .collect()
      ).data,
      reduceDims(
        x.map((v) => v + v * v),
        [m, k],
        [0],
        (p, v) => p + v,
        0,
      ),
    );
    expectClose(
      (await a.slice([2, 19, 2], [1, 16]).collect()).data,
      slice2(x, m, [2, 19, 2], [1, 16]),
    );
    const r = DArray.rand([m, k], new Blocks(5, 4), { context: ctx, assign, seed: 3 });
    expect(await r.max()).toBeLessThan(1);
    // Cholesky: the matrix is assembled by a task and factored where it is: on this process's
    // thread (shared memory), or in the worker process, where the tile tasks then run.
    const s = 19;
    const z = spd(s, 13);
    const spdArray = distribute(z, [s, s], new Blocks(6, 6), { context: ctx, assign });
    for (const where of [places[0], places[1]]) {
      enableLogging();
      let tiles: ReturnType<typeof fetchLogs>;
      try {
        fetchLogs();
        const l = await cholesky(spdArray, { scope: where });
        expectClose((await l.collect()).data, choleskyPlain(z, s));
        tiles = fetchLogs().filter(
          (e) => e.kind === 'finish' && ['potrf', 'trsm', 'syrk', 'gemm'].includes(e.name ?? ''),
        );
      } finally {
        disableLogging(); // the process's later files expect it off
      }
      // 4×4 tiles of 6 (19 padded to 24): 4 potrf, 6 trsm, 6 syrk, 4 gemm.
      expect(tiles).toHaveLength(20);
      const expected = where === places[0] ? 'thread:1:2' : onProcess;
      expect(new Set(tiles.map((e) => e.processor))).toEqual(new Set([expected]));
    }
  }, 60_000);
});

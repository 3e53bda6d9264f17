// Mixed placement with a GPU processor (@dtask/gpu-tfjs on the wasm backend, which
// loads here; a real GPU takes the same path): blocks alternate between the TfjsProc and a CPU
// thread; the operations work across them and equal the plain reference. The TfjsProc is not
// default-enabled (Dagger's rule), so only the tasks assigned to it run there; the operations'
// tasks run on the CPU threads and take the blocks from it.

import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { tfjs } from '@dtask/gpu-tfjs';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { expectClose, matmul, random, reduceDims, transpose } from './__fixtures__/reference.js';
import { Blocks, DArray, distribute } from './index.js';

describe('DArray across a CPU thread and a GPU processor', () => {
  it('blocks alternate between thread:1:2 and tfjs:1:0; operations equal the reference', async () => {
    await using ctx = new Context({ plugins: [threads({ count: 2 }), tfjs({ backend: 'wasm' })] });
    await ctx.ready();
    const places = [scope({ gpu: 0 }), scope({ worker: 1, thread: 2 })];
    const assign = ([i, j]: readonly number[]) => places[(i + j) % 2];
    const [m, k, n] = [23, 19, 11];
    const x = random(m * k, 21);
    const y = random(k * n, 22);
    enableLogging();
    fetchLogs();
    const a = distribute(x, [m, k], new Blocks(6, 5), { context: ctx, assign });
    const b = distribute(y, [k, n], new Blocks(5, 4), { context: ctx, assign });
    await Promise.all([...a.chunks, ...b.chunks].map((c) => c.wait()));
    expect(new Set(a.chunks.map((c) => c.processor?.id))).toEqual(
      new Set(['tfjs:1:0', 'thread:1:2']),
    );
    expectClose((await a.matmul(b).collect()).data, matmul(x, y, m, k, n));
    expectClose((await a.transpose().collect()).data, transpose(x, m, k));
    expectClose(
      (
        await a
          .map((v) => 3 * v - 1)
          .sum({ dims: [1] })
          .collect()
      ).data,
      reduceDims(
        x.map((v) => 3 * v - 1),
        [m, k],
        [1],
        (p, v) => p + v,
        0,
      ),
    );
    const r = DArray.rand([m, k], new Blocks(6, 5), { context: ctx, assign, seed: 5 });
    expect(await r.max()).toBeLessThan(1);
    // The logs say where: the blocks assigned to the GPU processor were made there, and no
    // operation's task (not default-enabled there) ran on it.
    const finished = fetchLogs().filter((e) => e.kind === 'finish');
    disableLogging();
    const onGpu = finished.filter((e) => e.processor === 'tfjs:1:0');
    expect(onGpu.length).toBeGreaterThan(0);
    const made = [...a.chunks, ...b.chunks, ...r.chunks]
      .filter((c) => c.processor?.id === 'tfjs:1:0')
      .map((c) => c.id);
    expect(new Set(onGpu.map((e) => e.task))).toEqual(new Set(made));
  }, 60_000);
});

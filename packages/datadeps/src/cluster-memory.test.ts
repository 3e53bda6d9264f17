// Datadeps with worker processes beside the threads (@dtask/cluster): data in a
// SharedArrayBuffer is shared by this process's threads only, so its tasks stay in this
// process (a worker process would write a copy that nobody sees); ordinary memory travels
// there and back (copy-in, write-back). Both equal the serial program.

import { cluster } from '@dtask/cluster';
import { Context, currentWorker } from '@dtask/core';
import { threads } from '@dtask/threads';
import { describe, expect, it } from 'vitest';
import { InOut } from './annotations.js';
import { cholesky, choleskyError, spdMatrix } from './examples/cholesky.js';
import { spawnDatadeps } from './spawn-datadeps.js';

async function withCluster<T>(body: (ctx: Context) => Promise<T>): Promise<T> {
  const ctx = new Context({ plugins: [threads({ count: 1 }), cluster({ workers: 1 })] });
  try {
    await ctx.ready();
    return await body(ctx);
  } finally {
    await ctx.close();
  }
}

describe('datadeps beside worker processes', () => {
  it('a Cholesky on shared memory runs in this process and equals the serial result', async () => {
    await withCluster(async (ctx) => {
      const a = spdMatrix(96, 3);
      const original = { ...a, data: a.data.slice() };
      await cholesky(a, 24, ctx.spawn.bind(ctx) as (...args: unknown[]) => unknown);
      expect(choleskyError(a, original)).toBeLessThan(1e-9);
    });
  });

  it('ordinary memory may go to a worker process and its writes come back', async () => {
    await withCluster(async (ctx) => {
      const xs = Array.from({ length: 12 }, (_, i) => new Float64Array(1000).fill(i));
      const ran: PromiseLike<number>[] = [];
      await spawnDatadeps(() => {
        for (const x of xs) {
          ran.push(
            ctx.spawn((v: Float64Array) => {
              for (let i = 0; i < v.length; i++) v[i] = v[i] * 2 + 1;
              return dtask.currentWorker();
            }, InOut(x)),
          );
        }
      });
      const where = await Promise.all(ran);
      expect(xs.map((x, i) => x.every((v) => v === i * 2 + 1))).toEqual(xs.map(() => true));
      expect(where).toHaveLength(12);
      expect(currentWorker()).toBe(1);
    });
  });
});

declare const dtask: typeof import('@dtask/core');

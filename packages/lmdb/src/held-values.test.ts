// A value a running task holds stays in memory while other results push the thread's process
// over its memory limit: what the task writes into it after an await is kept (it was lost when
// the spilling store wrote the value out from under the task and dropped it).
import { Context, ExactScope, ThreadProc } from '@dtask/core';
import { threads } from '@dtask/threads';
import { afterEach, expect, it } from 'vitest';
import { lmdb } from './lmdb-plugin.js';

const contexts: Context[] = [];
afterEach(async () => {
  for (const ctx of contexts.splice(0)) await ctx.close();
});

it('an async task changing its input in place across an await keeps the change while results spill', async () => {
  const store = lmdb({ memoryLimit: 96 * 1024 });
  const ctx = new Context({ plugins: [threads({ count: 1 }), store] });
  contexts.push(ctx);
  await ctx.ready();
  const thread = ctx
    .processors()
    .find((p) => p instanceof ThreadProc && p.worker === 1 && p.thread === 2)!;
  const here = { scope: new ExactScope(thread) };
  // Pinned state on the thread, as a shard's piece or a datadeps region is.
  const piece = ctx.spawn({ ...here, resultScope: new ExactScope(thread) }, () => ({ n: 0 }));
  await piece.wait();
  const bump = ctx.spawn(
    here,
    async (p: { n: number }) => {
      await new Promise((r) => setTimeout(r, 80));
      p.n += 1; // after the other results came in
      return p.n;
    },
    piece,
  );
  await new Promise((r) => setTimeout(r, 20)); // bump has started and holds the piece
  // Meanwhile 4 results of 64 KiB each land on the same thread: past the limit, the least
  // recently used (the piece) would be written out first.
  const big = Array.from({ length: 4 }, (_, i) =>
    ctx.spawn(here, (k: number) => new Float64Array(8192).fill(k), i),
  );
  await Promise.all(big.map((t) => t.wait()));
  expect(await bump).toBe(1);
  expect(await ctx.spawn(here, (p: { n: number }) => p.n, piece)).toBe(1);
  await store.flush();
  expect(store.stats().spills).toBeGreaterThan(0); // results did go to disk meanwhile
});

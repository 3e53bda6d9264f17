// Run as `node spill-main.mjs <path> <memoryLimit> <blocks> <doubles>` by the lmdb tests: a
// DAG over a working set larger than the memory limit, on 2 worker threads, spilling to the
// LMDB store at <path> (which other processes may share). Prints one JSON line: the totals it
// got, the totals expected, and the plugin's stats.
import { Context, everywhere } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';

const [path, memoryLimit, blocks, doubles] = process.argv.slice(2);
const plugin = lmdb({ path, memoryLimit: Number(memoryLimit) });
const ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
await ctx.ready();
const tasks = await import('./tasks.mjs');
await everywhere(new URL('./tasks.mjs', import.meta.url), ctx);
const { got, expected } = await workingSet(ctx, tasks, Number(blocks), Number(doubles));
console.log(JSON.stringify({ got, expected, stats: plugin.stats(), pid: process.pid }));
await ctx.close();

/** Blocks, pairwise sums of blocks, then the totals of every block and every sum. */
export async function workingSet(ctx, tasks, count, n) {
  const made = [];
  for (let i = 0; i < count; i++) made.push(ctx.spawn(tasks.block, i, n));
  const sums = [];
  for (let i = 0; i < count / 2; i++) sums.push(ctx.spawn(tasks.add, made[i], made[count - 1 - i]));
  const totals = [...made, ...sums].map((t) => ctx.spawn(tasks.total, t));
  const got = await Promise.all(totals);
  const tri = (n * (n - 1)) / 2;
  const expected = [
    ...made.map((_, i) => n * i + tri),
    ...sums.map(() => n * (count - 1) + 2 * tri),
  ];
  return { got, expected };
}

// Run as `node full-disk-main.mjs <path>` by disk-full.test.ts, with <path> on a 2 MiB tmpfs:
// 128 blocks of 64 KiB (8 MiB) on 2 worker threads under a 256 KiB memory limit, each summed by
// a second task (256 tasks). The disk fills up; every task must still settle with the right
// value. Prints one JSON line: whether every sum was right, how many settled, the stats.
import { Context, everywhere } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';

const [path] = process.argv.slice(2);
const plugin = lmdb({ path, memoryLimit: 256 * 1024 });
const ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
await ctx.ready();
const tasks = await import('./tasks.mjs');
await everywhere(new URL('./tasks.mjs', import.meta.url), ctx);
const n = 8192;
const blocks = Array.from({ length: 128 }, (_, i) => ctx.spawn(tasks.block, i, n));
let settled = 0;
const sums = blocks.map((b) => ctx.spawn(tasks.total, b).finally(() => settled++));
const tri = (n * (n - 1)) / 2;
const got = await Promise.all(sums);
const ok = got.every((v, i) => v === n * i + tri);
console.log(JSON.stringify({ ok, settled, stats: plugin.stats() }));
await ctx.close();

// Run as `node pipeline-main.mjs <path> <log> <crash|rerun>` by the checkpoint test: a small
// pipeline whose every task is checkpointed and restored from the LMDB store at <path>. In
// `crash` mode the process is killed (SIGKILL, from a task on a worker thread) once a, b and c
// have finished and been checkpointed; `rerun` runs the whole pipeline again and prints its
// result. Each task appends its name to <log> when it runs.
import { Context, everywhere } from '@dtask/core';
import { lmdb } from '@dtask/lmdb';
import { threads } from '@dtask/threads';

const [path, log, mode] = process.argv.slice(2);
const plugin = lmdb({ path, memoryLimit: 2 ** 30 });
const ctx = new Context({ plugins: [threads({ count: 2 }), plugin] });
await ctx.ready();
const tasks = await import('./tasks.mjs');
await everywhere(new URL('./tasks.mjs', import.meta.url), ctx);

const keep = { checkpoint: true, restore: true };
const a = ctx.spawn(keep, tasks.step, log, 'a', 2, 3); // 6
const b = ctx.spawn(keep, tasks.step, log, 'b', a, 5); // 30
const c = ctx.spawn(
  { checkpoint: { key: 'c' }, restore: { key: 'c' } },
  tasks.step,
  log,
  'c',
  2,
  7,
);
if (mode === 'crash') {
  await Promise.all([b, c]);
  await plugin.flush(); // the checkpoints of a, b and c are committed
  await ctx.spawn(tasks.crash, log, 'crash'); // never returns: the process dies
}
const d = ctx.spawn(keep, tasks.join, log, 'd', b, c); // 44
const e = ctx.spawn(keep, tasks.step, log, 'e', d, 10); // 440
console.log(JSON.stringify({ d: await d, e: await e }));
await ctx.close();

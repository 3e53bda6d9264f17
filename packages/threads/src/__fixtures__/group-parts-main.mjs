// Run as `node group-parts-main.mjs` by threads-group-parts.test.ts: a group task on one worker
// thread (`spawnGroup`) keeps its 4 outputs each under its own key (`groupParts`); its handles,
// pending at once, fetch them, and one is passed to a task on the other thread. Prints what it
// read as JSON, and ends without closing its context: nothing it made may keep node alive.
import { Context, everywhere, scope } from '@dtask/core';
import { spawnGroup } from '@dtask/core/plugin';
import { threads } from '@dtask/threads';
import { outputs } from './group-parts-tasks.mjs';

const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
await everywhere(new URL('./group-parts-tasks.mjs', import.meta.url), ctx);
const parts = spawnGroup(ctx, { scope: scope({ worker: 1, thread: 2 }) }, outputs, 4, [4]);
const sum = (a) => a.reduce((x, y) => x + y, 0);
// Spawned before the group ran: it waits for its output, then reads it on the other thread.
const other = ctx.spawn({ scope: scope({ worker: 1, thread: 3 }) }, sum, parts[3]);
const elsewhere = await other;
const on = [parts[3].processor.id, other.processor.id];
const fetched = (await Promise.all(parts.map((p) => p.fetch()))).map((a) => [a.length, a[0]]);
console.log(JSON.stringify({ fetched, elsewhere, on }));

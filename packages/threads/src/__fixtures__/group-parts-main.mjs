// Run as `node group-parts-main.mjs` by threads-group-parts.test.ts: a group task on one worker
// thread keeps its 4 outputs each under its own key (`groupParts`); its finished handles
// (`groupPartHandles`) fetch them and pass one to a task on the other thread. Prints what it
// read as JSON, and ends without closing its context: nothing it made may keep node alive.
import { Context, everywhere, scope } from '@dtask/core';
import { groupPartHandles, takeTaskIds } from '@dtask/core/plugin';
import { threads } from '@dtask/threads';
import { outputs } from './group-parts-tasks.mjs';

const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
await everywhere(new URL('./group-parts-tasks.mjs', import.meta.url), ctx);
const group = ctx.spawn({ scope: scope({ worker: 1, thread: 2 }) }, outputs, takeTaskIds(4), 4);
await group.wait();
const parts = groupPartHandles(group);
const fetched = (await Promise.all(parts.map((p) => p.fetch()))).map((a) => [a.length, a[0]]);
const sum = (a) => a.reduce((x, y) => x + y, 0);
const other = ctx.spawn({ scope: scope({ worker: 1, thread: 3 }) }, sum, parts[3]);
const elsewhere = await other;
const on = [parts[3].processor.id, other.processor.id];
console.log(JSON.stringify({ fetched, elsewhere, on }));

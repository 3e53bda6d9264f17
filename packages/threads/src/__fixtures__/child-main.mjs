// Run as `node child-main.mjs` by the lifecycle test: configures threads, runs one task,
// prints its result and does NOT call shutdown(); idle threads must not keep node alive.
import { configure, spawn } from '@dtask/core';
import { threads } from '@dtask/threads';

const ctx = configure({ plugins: [threads({ count: 2 })] });
await ctx.ready();
const result = await spawn((x) => [x + 1, dtask.taskProcessor().id], 41);
console.log(JSON.stringify(result));

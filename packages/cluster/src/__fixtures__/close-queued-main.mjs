// Run as `node close-queued-main.mjs <processes|default>` by cluster-close.test.ts: 4,000
// one-millisecond tasks on 2 worker processes (a context of its own, `close()`; or the default
// context configured with them, `shutdown()`), then the close 150 ms later.
// Counts the tasks that started after it resolved (must be 0), and how the rest settled; exits
// 0 when none did.
import { cluster } from '@dtask/cluster';
import { Context, configure, shutdown, spawn } from '@dtask/core';

const [where = 'processes'] = process.argv.slice(2);
const task = () => {
  const started = performance.timeOrigin + performance.now();
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1); // a millisecond's work
  return started;
};
let ctx;
if (where === 'default') configure({ plugins: [cluster({ workers: 2 })] });
else ctx = new Context({ plugins: [cluster({ workers: 2 })] });
const run = ctx ? (f) => ctx.spawn(f) : (f) => spawn(f);
if (ctx) await ctx.ready();
const tasks = Array.from({ length: 4000 }, () => run(task));
await new Promise((resolve) => setTimeout(resolve, 150));
if (!ctx) await shutdown();
else await ctx.close();
const closedAt = performance.timeOrigin + performance.now();
const settled = await Promise.allSettled(tasks);
let after = 0;
let ran = 0;
let cancelled = 0;
let lost = 0;
const other = [];
for (const s of settled) {
  if (s.status === 'fulfilled') {
    ran++;
    if (s.value > closedAt) after++;
  } else {
    const code = s.reason?.cause?.code ?? s.reason?.code;
    if (code === 'DTASK_CANCELLED') cancelled++;
    else if (code === 'DTASK_WORKER_LOST') lost++;
    else other.push(s.reason);
  }
}
console.log(`started after close resolved: ${after}`);
console.log(
  `ran before: ${ran > 0 ? 'some' : 'none'}; cancelled: ${cancelled > 0 ? 'some' : 'none'}`,
);
console.log(
  `lost while running: ${lost <= 2 ? 'at most 2' : lost}; other failures: ${other.length}`,
);
if (other.length > 0) console.error(other[0]);
process.exit(after === 0 && other.length === 0 ? 0 : 1);

// Run as `node group-ops-main.mjs` by group-ops.test.ts: element-wise operations on a DArray
// spread over 2 worker threads, each computed as one group task per thread with a handle per
// output block; one block fetched alone, one passed to a task on the other thread. Prints what
// it read as JSON, and ends without closing its context: nothing it made may keep node alive.
import { Blocks, distribute } from '@dtask/array';
import { Context, ExactScope } from '@dtask/core';
import { threads } from '@dtask/threads';

const ctx = new Context({ plugins: [threads({ count: 2 })] });
await ctx.ready();
const x = Float64Array.from({ length: 64 * 64 }, (_, i) => i % 97);
const a = distribute(x, [64, 64], new Blocks(16, 16), { context: ctx });
const b = a.mul(2).add(1);
const c = b.sub(a); // from b's handles, once b's groups ran
const got = (await c.collect()).data;
const wrong = got.filter((v, i) => v !== x[i] + 1).length;
const first = b.chunks[0];
const last = b.chunks[b.chunks.length - 1];
const block = await first.fetch();
const sum = (blk) => blk.data.reduce((s, v) => s + v, 0);
// Block 1, not fetched: read on the other thread where its group kept it.
const there = ctx.spawn({ scope: new ExactScope(last.processor) }, sum, b.chunks[1]);
const on = [b.chunks[1].processor.id, last.processor.id];
const elsewhere = await there;
const want = sum(await b.chunks[1].fetch());
console.log(
  JSON.stringify({
    wrong,
    blocks: b.chunks.length,
    block: Array.from(block.data.slice(0, 3)),
    elsewhere,
    want,
    on,
  }),
);

// Jacobi sweeps on 2 worker threads with the blocks placed unevenly (one block on the first
// thread, the other 63 on the second), so the first thread's task waits at the barrier
// between steps while the second still computes; nothing else keeps node's event loop open.
// Prints { maxDiff, tasks } (against the same sweeps in plain JS) and exits on its own.
import { Blocks, DArray, distribute, Pad, stencilSteps } from '@dtask/array';
import { Context, disableLogging, enableLogging, fetchLogs, scope } from '@dtask/core';
import { threads } from '@dtask/threads';

const n = 256;
const STEPS = 40;
const x = new Float64Array(n * n).map((_, i) => ((i * 7919) % 1000) / 1000);

/** One Jacobi sweep of `a` into `b` (n×n, column-major), Pad(0) past the edges. */
function sweep(a, b) {
  for (let j = 0; j < n; j++) {
    for (let i = 0; i < n; i++) {
      const o = j * n + i;
      const up = i > 0 ? a[o - 1] : 0;
      const down = i < n - 1 ? a[o + 1] : 0;
      const left = j > 0 ? a[o - n] : 0;
      const right = j < n - 1 ? a[o + n] : 0;
      b[o] = (up + down + left + right) / 4;
    }
  }
}
const a = Float64Array.from(x);
const b = new Float64Array(n * n);
for (let s = 0; s < STEPS; s++) s % 2 === 0 ? sweep(a, b) : sweep(b, a);

const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
const places = [scope({ worker: 1, thread: 2 }), scope({ worker: 1, thread: 3 })];
const assign = ([i, j]) => places[i === 0 && j === 0 ? 0 : 1];
const A = distribute(x, [n, n], new Blocks(32, 32), { context, assign });
const B = DArray.zeros([n, n], new Blocks(32, 32), { context, assign });
const jacobiA = (at) => (at.A(-1, 0) + at.A(1, 0) + at.A(0, -1) + at.A(0, 1)) / 4;
const jacobiB = (at) => (at.B(-1, 0) + at.B(1, 0) + at.B(0, -1) + at.B(0, 1)) / 4;
const steps = [];
for (let s = 0; s < STEPS; s++) {
  steps.push(s % 2 === 0 ? { out: 'B', kernel: jacobiA } : { out: 'A', kernel: jacobiB });
}
enableLogging();
await stencilSteps({ A, B }, steps, { boundary: new Pad(0) });
disableLogging();
const tasks = fetchLogs().filter((e) => e.kind === 'finish' && e.name === 'stencilSweeps').length;
const got = (await A.collect()).data;
let maxDiff = 0;
for (let i = 0; i < got.length; i++) maxDiff = Math.max(maxDiff, Math.abs(got[i] - a[i]));
console.log(JSON.stringify({ maxDiff, tasks }));
await context.close();

// Lineage that does not grow forever, on the built dist:
//   node bench/lineage.mjs [--n=1000000] [--quick] [--depth=64] [--no-kill] [--from=CHECKOUT]
// A pipeline of n tasks on 2 threads, each taking the previous three results (1,100 bytes each,
// above the inline size, so every result stays on the thread that made it), handles dropped as
// it goes (every 500 tasks the newest is waited for, never fetched). A thread holding a recent
// result is terminated 1,000 tasks before the end. Prints the main thread's heap and the tasks
// still alive (not collected) every tenth of the run, each thread's heap at the end, and checks
// the last result against the same pipeline computed here. --from runs another checkout's built
// packages (e.g. --from=/work/main, to compare with a build that keeps the whole pipeline).

import { join, resolve } from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { int } from './shared.mjs';

setFlagsFromString('--expose-gc'); // before the threads start: they get gc() too
const gc = runInNewContext('gc');

const flags = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
for (const k of flags.keys()) {
  if (!['n', 'quick', 'depth', 'no-kill', 'from'].includes(k)) {
    console.error(`unknown flag --${k}; known: --n=N, --quick, --depth=D, --no-kill, --from=DIR`);
    process.exit(2);
  }
}
const from = flags.get('from');
const pkg = (name) =>
  from === undefined
    ? `@dtask/${name}`
    : pathToFileURL(join(resolve(from), 'packages', name, 'dist', 'index.js')).href;
const { Context, scope } = await import(pkg('core'));
const { threads } = await import(pkg('threads'));
const N = Number(flags.get('n') ?? (flags.has('quick') ? 100_000 : 1_000_000));
const DEPTH = flags.has('depth') ? Number(flags.get('depth')) : undefined;
const KILL = !flags.has('no-kill');
if (!Number.isInteger(N) || N < 10_000 || N % 10 !== 0) {
  console.error('--n must be a multiple of 10, at least 10,000');
  process.exit(2);
}
const KILL_AT = N - 1_000;

const step = (a, b, c) => {
  const out = new Uint8Array(1100);
  for (let j = 0; j < 1100; j++) out[j] = (a[j] + 2 * b[j] + 3 * c[j] + j) & 255;
  return out;
};
const seed = (i) => new Uint8Array(1100).fill(i + 1);
const threadHeap = () => {
  globalThis.gc?.();
  const m = process.memoryUsage();
  return [m.heapUsed, m.arrayBuffers];
};

const alive = new Set();
const collected = new FinalizationRegistry((id) => alive.delete(id));

async function settle() {
  for (let k = 0; k < 10; k++) {
    gc();
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

const plugin = threads({ count: 2 });
const ctx = new Context({ plugins: [plugin] });
await ctx.ready();
if (DEPTH !== undefined) {
  if (!('lineageDepth' in ctx.scheduler)) console.log('(this build has no lineage depth)');
  ctx.scheduler.lineageDepth = DEPTH;
}
await settle();
const heap0 = process.memoryUsage().heapUsed;
console.log(
  `lineage (${from ?? 'this checkout'}): ${int(N)}-task pipeline on 2 threads, each task takes the previous 3 results (1,100 B)`,
);
console.log(`heap before: ${mib(heap0)}`);

const t0 = performance.now();
let expect = [seed(0), seed(1), seed(2)];
let last = [];
let killed = '';
for (let i = 0; i < N; i++) {
  const t = i < 3 ? ctx.spawn(seed, i) : ctx.spawn(step, last[2], last[1], last[0]);
  if (i >= 3) expect = [expect[1], expect[2], step(expect[2], expect[1], expect[0])];
  alive.add(t.id);
  collected.register(t, t.id);
  last = [...last.slice(-2), t];
  if (KILL && i === KILL_AT) {
    await t.wait();
    const worker = plugin.threadWorkers().find((w) => w.proc.id === t.proc.id);
    killed = worker.proc.id;
    await worker.worker.terminate();
  }
  if (i % 500 === 499) await t.wait();
  if ((i + 1) % (N / 10) === 0) {
    await settle();
    const heap = process.memoryUsage().heapUsed;
    console.log(
      `  after ${int(i + 1).padStart(9)} tasks: heap ${mib(heap).padStart(10)} (+${mib(heap - heap0)}), tasks alive ${int(alive.size)}`,
    );
  }
}
const end = last[2];
await end.wait();
const seconds = (performance.now() - t0) / 1000;
last = [];
await settle();
const heap1 = process.memoryUsage().heapUsed;
const threadsHeap = [];
for (const thread of [1, 2]) {
  const [h, ab] = await ctx.spawn({ scope: scope({ worker: 1, thread }) }, threadHeap);
  threadsHeap.push(`thread ${thread}: heap ${mib(h)}, array buffers ${mib(ab)}`);
}
const value = await end;
const exact = value.length === 1100 && value.every((x, j) => x === expect[2][j]);
console.log(`heap after:  ${mib(heap1)} (+${mib(heap1 - heap0)}), tasks alive ${int(alive.size)}`);
console.log(`threads:     ${threadsHeap.join('; ')}`);
console.log(
  `time ${seconds.toFixed(1)} s (${((seconds * 1e6) / N).toFixed(1)} µs/task); ` +
    `${KILL ? `${killed} terminated at task ${int(KILL_AT)}; ` : ''}last result ${exact ? 'exact' : 'WRONG'}`,
);
await ctx.close();
if (!exact) process.exit(1);

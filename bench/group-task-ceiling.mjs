// The ceiling of a group task per worker thread for a DArray element-wise operation: what a block
// would cost beyond its kernel if one task per thread computed all the blocks of an operation
// that live on that thread (Ray's `num_returns`, Dask's blockwise layer), so that the scheduler,
// the messages and the completion path are paid once per thread per operation, not per block.
// 128² float64 in 16² blocks (64 blocks of 2 KiB, past the inline limit: each lives on a worker
// thread), 2 worker threads, `setSmallWorkElements(0)`; every case runs the same block kernel
// (`fusedBlockSimd`, the one `a.mul(2)` runs) once per block:
// - `mul`: `a.mul(2)` itself: since the seventeenth session one group task per thread's run of
//   blocks (`spawnGroup`: the runner `fusedGroupSimd` calls the kernel per block), a `DTask`
//   handle per output block made from the group's completion (no placement, message, promise
//   or `FinalizationRegistry` cell per block), each block kept on its worker under its own key;
//   before it, a task per block (64 a call: `bench/block-task-cost.mjs --before=` measures that);
// - `group`: one task per worker thread (2 a call; `bench/fixtures/group-mul.mjs`'s `mulGroup`,
//   loaded with `everywhere`), placed with an `ExactScope` on the thread holding its 32 input
//   blocks, the blocks passed as its arguments (the chunks), its 32 output blocks returned as
//   one array kept on the worker under the group task's key: the least the transport allows for
//   the same work, with no handle per output block;
// - `picked`: `group`, then a tiny task per block (`spawnBatch`, the same scope) that returns
//   its block of the group's array, kept on the worker under its own key: a handle per output
//   block on top of the group (what `DArray.chunks` must give), built from the public API;
// - `grouped`: `group` whose input is each thread's blocks held as one result there (made once,
//   `groupOf`): one argument a group task instead of 32, as when the input came from a group;
// - `timed`: `group` with the kernel calls' own time read on the worker threads around them
//   (wall time, `performance.now()` twice a group task: a thread's own CPU counter is stale
//   within a tick): the kernel as it runs there, in the memory the worker gives it (the pool
//   keeps no group's blocks, but hands it what `mul`'s released blocks left), against the same
//   call on the main thread in fresh memory.
// The cases run in one process, alternated (each round runs every case, the order rotated each
// round); warm-up calls are alternated too. CPU from `/proc/self/task/*/schedstat`, per block
// (÷ 64 a call): the main thread, the 2 worker threads (their thread ids read by a task on each)
// and the rest of the process (V8's helper threads, libuv); the kernel's own CPU per block, the
// same call on the main thread, is subtracted for "beyond the kernel" (it moves by 1–2 µs from
// run to run; "saved", a case's CPU a block less than `mul`'s, does not depend on it). Linux only.
//   node bench/group-task-ceiling.mjs [--calls=200] [--warmup=N] [--rounds=5] [--cases=mul,group,picked]
//   node bench/group-task-ceiling.mjs --quick      # 30 calls after 30, 3 rounds: a smoke run (~10 s)
//   node bench/group-task-ceiling.mjs --warmup=3000   # the steady state
// --warmup (default: --calls) is the number of calls of each case run before the timed ones.
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { Blocks, distribute, setSmallWorkElements } from '@dtask/array';
import { fusedBlockSimd } from '@dtask/array/kernels';
import { Context, ExactScope, everywhere } from '@dtask/core';
import { spawnBatch } from '@dtask/core/plugin';
import { threads } from '@dtask/threads';
import { firstSpawn, fusedCallOf } from './fixtures/first-spawn.mjs';
import {
  groupOf,
  mulGroup,
  mulGroupOf,
  mulGroupTimed,
  takeKernelNs,
  threadTid,
} from './fixtures/group-mul.mjs';
import { threadCpu } from './fixtures/thread-cpu.mjs';
import { median, table } from './shared.mjs';

const flags = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const quick = flags.has('quick');
const calls = Number(flags.get('calls') ?? (quick ? 30 : 200));
const warmup = Number(flags.get('warmup') ?? calls);
const rounds = Number(flags.get('rounds') ?? (quick ? 3 : 5));
const caseNames = (flags.get('cases') ?? 'mul,group,picked,grouped,timed').split(',');

const N = 128;
const B = 16;
const BLOCKS = (N / B) ** 2;
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];

setSmallWorkElements(0);
const x = Float64Array.from({ length: N * N }, (_, i) => Math.sin(i));
const context = new Context({ plugins: [threads({ count: 2 })] });
await context.ready();
await everywhere(new URL('./fixtures/group-mul.mjs', import.meta.url), context);
const a = distribute(x, [N, N], new Blocks(B, B), { context });
await Promise.all(a.chunks.map((c) => c.wait()));

// The blocks by the thread holding them: one group per worker thread.
const groups = new Map();
a.chunks.forEach((c, k) => {
  const id = c.processor.id;
  if (!groups.has(id)) groups.set(id, { scope: new ExactScope(c.processor), chunks: [], at: [] });
  groups.get(id).chunks.push(c);
  groups.get(id).at.push(k);
});
const workerTids = new Set(
  await Promise.all([...groups.values()].map((g) => context.spawn({ scope: g.scope }, threadTid))),
);

// The program, plan, dtype and scalars `a.mul(2)` sends its block kernel, from its first spawn.
let first;
const sent = fusedCallOf(
  await firstSpawn(context, async () => {
    first = a.mul(2);
    await Promise.all(first.chunks.map((c) => c.wait()));
  }),
);
if (sent.kernel !== fusedBlockSimd.name)
  throw new Error(`a.mul(2) ran ${sent.kernel}, not fusedBlockSimd`);
const kernelArgs = sent.lead;

/** Each group's task: its thread's blocks through the kernel, one array of blocks back. */
const spawnGroups = (fn = mulGroup) =>
  [...groups.values()].map((g) =>
    context.spawn({ scope: g.scope }, fn, ...kernelArgs, ...g.chunks),
  );

// `grouped`'s inputs: each thread's blocks of `a` held as one result there, made once.
for (const g of groups.values()) g.input = context.spawn({ scope: g.scope }, groupOf, ...g.chunks);
await Promise.all([...groups.values()].map((g) => g.input.wait()));

/** One output block of a group's array: a result of its own, kept where the array is. */
function pick(blocks, i) {
  return blocks[i];
}

const cases = {
  async mul() {
    const m = a.mul(2);
    await Promise.all(m.chunks.map((c) => c.wait()));
  },
  async group() {
    const tasks = spawnGroups();
    await Promise.all(tasks.map((t) => t.wait()));
  },
  async picked() {
    const tasks = spawnGroups();
    const out = [];
    let g = 0;
    for (const { scope, at } of groups.values()) {
      const task = tasks[g++];
      spawnBatch(
        context,
        { scope },
        pick,
        at.map((_, i) => [task, i]),
        out,
      );
    }
    await Promise.all(out.map((t) => t.wait()));
  },
  async grouped() {
    const tasks = [...groups.values()].map((g) =>
      context.spawn({ scope: g.scope }, mulGroupOf, ...kernelArgs, g.input),
    );
    await Promise.all(tasks.map((t) => t.wait()));
  },
  async timed() {
    const tasks = spawnGroups(mulGroupTimed);
    await Promise.all(tasks.map((t) => t.wait()));
  },
};

/** The kernel CPU (ns) `timed`'s tasks spent on both worker threads since the last take. */
const takeWorkersKernelNs = async () => {
  const ns = await Promise.all(
    [...groups.values()].map((g) => context.spawn({ scope: g.scope }, takeKernelNs)),
  );
  return ns[0] + ns[1];
};

// The cases compute the same blocks: each block of `group` and `grouped` equals `a.mul(2)`'s.
{
  const want = await Promise.all(first.chunks.map((c) => c.fetch()));
  const arrays = await Promise.all(spawnGroups().map((t) => t.fetch()));
  const viaInputs = [...groups.values()].map((g) =>
    context.spawn({ scope: g.scope }, mulGroupOf, ...kernelArgs, g.input).fetch(),
  );
  arrays.push(...(await Promise.all(viaInputs)));
  let g = 0;
  for (const { at } of [...groups.values(), ...groups.values()]) {
    const got = arrays[g++];
    at.forEach((k, i) => {
      for (let j = 0; j < B * B; j++) {
        if (got[i].data[got[i].offset + j] !== want[k].data[want[k].offset + j]) {
          throw new Error(`group block ${k} differs from a.mul(2)'s at ${j}`);
        }
      }
    });
  }
}

for (let i = 0; i < warmup; i++) for (const name of caseNames) await cases[name]();
await takeWorkersKernelNs();

const figures = Object.fromEntries(caseNames.map((n) => [n, { main: [], workers: [], rest: [] }]));
// `timed`'s kernel calls' own CPU on the worker threads, µs a block, each round.
const inSitu = [];
const loads = [Number(load())];
const mainTid = String(process.pid);
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < caseNames.length; k++) {
    const name = caseNames[(k + r) % caseNames.length];
    const c0 = threadCpu();
    for (let i = 0; i < calls; i++) await cases[name]();
    const c1 = threadCpu();
    let main = 0;
    let workers = 0;
    let rest = 0;
    for (const [tid, ns] of c1) {
      const d = ns - (c0.get(tid) ?? 0);
      if (tid === mainTid) main += d;
      else if (workerTids.has(tid)) workers += d;
      else rest += d;
    }
    const per = (ns) => ns / 1e3 / calls / BLOCKS;
    figures[name].main.push(per(main));
    figures[name].workers.push(per(workers));
    figures[name].rest.push(per(rest));
    if (name === 'timed') inSitu.push(per(await takeWorkersKernelNs()));
  }
  loads.push(Number(load()));
}
await context.close();

// The kernel's own CPU per block, the same call on the main thread (fresh memory each call):
// the main thread's CPU (not the process's: V8's helpers sweep the buffers), median of 5.
const block = {
  data: new Float64Array(new SharedArrayBuffer(8 * B * B)).fill(0.5),
  shape: [B, B],
  strides: [1, B],
  offset: 0,
};
const mainNs = () => threadCpu().get(mainTid);
for (let i = 0; i < 20_000; i++) fusedBlockSimd(...kernelArgs, block);
const kernels = [];
for (let r = 0; r < 5; r++) {
  const k0 = mainNs();
  for (let i = 0; i < 20_000; i++) fusedBlockSimd(...kernelArgs, block);
  kernels.push((mainNs() - k0) / 1e3 / 20_000);
}
const kernel = median(kernels);

const beyond = (name) => {
  const f = figures[name];
  return median(f.main) + median(f.workers) + median(f.rest) - kernel;
};
const base = caseNames.includes('mul') ? beyond('mul') : undefined;
const rows = caseNames.map((name) => {
  const f = figures[name];
  const all = median(f.main) + median(f.workers) + median(f.rest);
  return [
    name,
    median(f.main).toFixed(2),
    median(f.workers).toFixed(2),
    median(f.rest).toFixed(2),
    all.toFixed(2),
    (all - kernel).toFixed(2),
    base === undefined ? '' : (beyond(name) / base).toFixed(2),
    base === undefined ? '' : (base - beyond(name)).toFixed(2),
    f.main.map((v, i) => (v + f.workers[i] + f.rest[i] - kernel).toFixed(1)).join(' '),
  ];
});
console.log(
  `\nGroup tasks against a.mul(2): ${N}² float64 in ${B}² blocks (${BLOCKS} blocks a ` +
    `call) on 2 worker threads, ${calls} calls after ${warmup} a case, alternated in one ` +
    `process, median of ${rounds} rounds; load ${Math.min(...loads)}–${Math.max(...loads)}; ` +
    `CPU in µs a block (kernel ${kernel.toFixed(2)} µs a block, subtracted for "beyond")\n`,
);
console.log(
  table(
    [
      'case',
      'main',
      'workers',
      'rest',
      'all',
      'beyond the kernel',
      '÷ mul',
      'saved',
      'rounds (beyond)',
    ],
    rows,
  ),
);
if (inSitu.length > 0) {
  const w = median(figures.timed.workers);
  console.log(
    `\ntimed: the kernel's own time (wall) on the worker threads, inside the group task, ` +
      `${median(inSitu).toFixed(2)} µs a block (rounds ${inSitu.map((v) => v.toFixed(2)).join(' ')}); ` +
      `the worker threads' CPU beyond it ${(w - median(inSitu)).toFixed(2)} µs a block`,
  );
}
process.exit(0);

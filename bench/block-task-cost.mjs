// What a DArray block task costs beyond its kernel, thread by thread: 128² float64 in 16²
// blocks (2 KiB each: past the inline limit, so each block lives on a worker thread, while the
// kernel itself is next to nothing), 64 block tasks a call on 2 worker threads, with
// `setSmallWorkElements(0)` so that each call makes its tasks. Two operations: `a.sum()` (a
// number back per block) and `a.mul(2)` (a fused SIMD block made and kept on the worker); and,
// to split a block task's cost, three plain tasks spawned per block where it lives (the scope
// `a.mul(2)` gives it): `number` reads the block and returns a number, `kept` returns a new
// block object over the same data (kept on the worker, nothing allocated), `fresh` returns a
// new 2 KiB block of its own in shared memory (kept on the worker, as `mul`'s), and `args` is
// `fresh` sent the program, plan, dtype and scalars `a.mul(2)`'s tasks carry. `chain` is
// `a.mul(2).add(1).mul(a)`: three operations fused into one SIMD task per block. `reused` is
// `fresh` writing into memory of blocks made before (a ring per worker thread: a probe of what
// fresh pages cost, not a safe reuse); `spec` is `args` with the four as one object.
// CPU from `/proc/self/task/*/schedstat` (the main thread's ÷ 64, the rest of the process's ÷
// 64), and the kernel's own CPU per block, the same call on the main thread, subtracted for the
// "beyond its kernel" column; and the call's synchronous part on the main thread (the operation,
// its planning and its spawns: the least of all calls, in wall time). Also the minor page faults
// off the main thread a block, and the main thread's full collections in the timed calls: a
// block made while no released block's memory is pooled on its worker is new memory, about
// 15–25 µs of a worker's CPU a page on this VM, and the blocks come back only after a full
// collection on the main thread (its handles' cells). Linux only.
//   node bench/block-task-cost.mjs [--calls=200] [--pairs=3] [--ops=sum,mul,chain,number,kept,fresh,args,spec,reused]
//     [--warmup=N] [--before=DIR]
//     [--processes]
// --warmup (default: --calls) is the number of calls run before the timed ones: V8 compiles the
// per-task path of the scheduler, the workers and Node's message ports late (a function is
// optimised after thousands of calls; each of the 3 isolates compiles its own), and with the
// default its helper threads still compile in the timed calls.
// --before names a built checkout (DIR/packages/*/dist): each pair runs it and this checkout
// in separate processes, alternately (first one, then the other, the order swapped each pair),
// so a change is compared with the code before it under the same load. --processes runs the
// blocks on 2 worker processes (`cluster({ workers: 2 })`) instead; CPU then counts the worker
// processes (all their threads).
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { constants, PerformanceObserver } from 'node:perf_hooks';
import process from 'node:process';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { firstSpawn, fusedCallOf } from './fixtures/first-spawn.mjs';
import { threadCpu, threadFaults } from './fixtures/thread-cpu.mjs';
import { median, table } from './shared.mjs';

const flags = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k, v ?? 'true'];
  }),
);
const here = resolve(join(fileURLToPath(import.meta.url), '../..'));
const calls = Number(flags.get('calls') ?? 200);
const warmup = Number(flags.get('warmup') ?? calls);
const inProcesses = flags.has('processes');

const N = 128;
const B = 16;
const TASKS = (N / B) ** 2;

if (flags.has('case')) {
  // One process: one checkout, one operation; prints its figures as JSON.
  const root = flags.get('root');
  const op = flags.get('case');
  const from = (path) => import(pathToFileURL(join(root, path)).href);
  const { Context, ExactScope } = await from('packages/core/dist/index.js');
  const { threads } = await from('packages/threads/dist/index.js');
  const { cluster } = await from('packages/cluster/dist/index.js');
  const { Blocks, distribute, setSmallWorkElements } = await from('packages/array/dist/index.js');
  const { fusedBlockSimd, reduceWhole } = await from('packages/array/dist/kernels.js');
  setSmallWorkElements(0);
  const x = Float64Array.from({ length: N * N }, (_, i) => Math.sin(i));
  const plugin = inProcesses ? cluster({ workers: 2 }) : threads({ count: 2 });
  const context = new Context({ plugins: [plugin] });
  await context.ready();
  const a = distribute(x, [N, N], new Blocks(B, B), { context });
  await Promise.all(a.chunks.map((c) => c.wait()));
  let kernel;
  let run;
  const block = {
    data: new Float64Array(new SharedArrayBuffer(8 * B * B)).fill(0.5),
    shape: [B, B],
    strides: [1, B],
    offset: 0,
  };
  const plain = {
    number: numberOf,
    kept: keptOver,
    fresh: freshBlock,
    args: freshWith,
    spec: freshWith,
    reused: reusedBlock,
  }[op];
  if (plain !== undefined) {
    const options = a.chunks.map((c) => ({ scope: new ExactScope(c.processor) }));
    // `args`: `fresh` given the four arguments `a.mul(2)`'s tasks carry before the block.
    const sent = op === 'args' || op === 'spec' ? await mulArgs(context, a) : [];
    // `spec`: the same four as one object, the same for every task (written once a message).
    const extra = op === 'spec' ? [Object.freeze({ sent })] : sent;
    run = async () => {
      const tasks = a.chunks.map((c, k) => context.spawn(options[k], plain, ...extra, c));
      await Promise.all(tasks.map((t) => t.wait()));
    };
    kernel = () => plain(...extra, block);
  } else if (op === 'sum') {
    run = () => a.sum();
    kernel = () => reduceWhole('sum', block);
  } else {
    // `chain`: three operations fused into one task per block (the same SIMD kernel).
    const make = op === 'chain' ? () => a.mul(2).add(1).mul(a) : () => a.mul(2);
    run = async () => {
      const m = make();
      await Promise.all(m.chunks.map((c) => c.wait()));
    };
    // The program and plan `make()` sends, taken from its first task's arguments.
    const call = fusedCallOf(await firstSpawn(context, run));
    if (call.kernel !== 'fusedBlockSimd') throw new Error(`${op} ran ${call.kernel}`);
    const [program, plan, dtype, scalars] = call.lead;
    const inputs = Array.from({ length: call.width }, () => block);
    kernel = () => fusedBlockSimd(program, plan, dtype, scalars, ...inputs);
  }
  for (let i = 0; i < warmup; i++) await run();
  const mainTid = String(process.pid);
  const main = [];
  const rest = [];
  const faults = [];
  // The main thread's full collections in the timed calls: only they release the results its
  // dropped handles named (a FinalizationRegistry's cells), and so return the workers' blocks
  // to their pools; until then each new block is new memory, faulted in page by page.
  let majors = 0;
  const gcs = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.detail.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  });
  gcs.observe({ entryTypes: ['gc'] });
  // The call's synchronous part (the operation, its planning and its spawns), least of all
  // calls in wall time: the main thread's own work, before any worker has reported.
  let sync = Number.POSITIVE_INFINITY;
  for (let r = 0; r < 5; r++) {
    const c0 = threadCpu({ children: inProcesses });
    const f0 = threadFaults({ children: inProcesses });
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      const called = run();
      sync = Math.min(sync, performance.now() - t0);
      await called;
    }
    const c1 = threadCpu({ children: inProcesses });
    const f1 = threadFaults({ children: inProcesses });
    let fo = 0;
    for (const [tid, n] of f1) if (tid !== mainTid) fo += n - (f0.get(tid) ?? 0);
    faults.push(fo / calls / TASKS);
    let m = 0;
    let o = 0;
    for (const [tid, ns] of c1) {
      const d = ns - (c0.get(tid) ?? 0);
      if (tid === mainTid) m += d;
      else o += d;
    }
    main.push(m / 1e3 / calls / TASKS);
    rest.push(o / 1e3 / calls / TASKS);
  }
  gcs.disconnect();
  await context.close();
  for (let i = 0; i < 20_000; i++) kernel();
  const k0 = process.cpuUsage();
  for (let i = 0; i < 100_000; i++) kernel();
  const k = process.cpuUsage(k0);
  console.log(
    JSON.stringify({
      main: median(main),
      rest: median(rest),
      kernel: (k.user + k.system) / 100_000,
      sync: (sync * 1e3) / TASKS,
      faults: median(faults),
      majors,
    }),
  );
  process.exit(0);
}

/** What `a.mul(2)` sends its block kernel before the block: its program, plan, dtype, scalars. */
async function mulArgs(context, a) {
  return fusedCallOf(await firstSpawn(context, () => a.mul(2).chunks)).lead;
}

/** `freshBlock` of its last argument, the others unused (what they cost to send). */
function freshWith(...args) {
  const b = args[args.length - 1];
  const data = new Float64Array(new SharedArrayBuffer(8 * b.data.length));
  for (let i = 0; i < data.length; i++) data[i] = 2 * b.data[i];
  return { data, shape: b.shape, strides: b.strides, offset: 0 };
}

/**
 * `freshBlock` written into memory used before: a ring of 8,192 blocks per worker thread, taken
 * in turn (a probe only: a block still held is overwritten 8,192 blocks later, and nothing here
 * reads it). What `fresh` would cost if a worker reused released blocks' memory.
 */
function reusedBlock(b) {
  const n = b.data.length;
  const ring = (globalThis.__blockRing ??= { blocks: [], next: 0 });
  const k = ring.next++ % 8192;
  let data = ring.blocks[k];
  if (data === undefined || data.length !== n) {
    data = new Float64Array(new SharedArrayBuffer(8 * n));
    ring.blocks[k] = data;
  }
  for (let i = 0; i < n; i++) data[i] = 2 * b.data[i];
  return { data, shape: b.shape, strides: b.strides, offset: 0 };
}

/** A block's first element: a number back (inline). */
function numberOf(b) {
  return b.data[b.offset];
}

/** A new block object over `b`'s data: kept on the worker, nothing allocated but the object. */
function keptOver(b) {
  return { data: b.data, shape: b.shape, strides: b.strides, offset: b.offset };
}

/** `b` times 2 in a new block of its own, in shared memory (what `a.mul(2)` makes). */
function freshBlock(b) {
  const data = new Float64Array(new SharedArrayBuffer(8 * b.data.length));
  for (let i = 0; i < data.length; i++) data[i] = 2 * b.data[i];
  return { data, shape: b.shape, strides: b.strides, offset: 0 };
}

const roots = flags.has('before') ? [resolve(flags.get('before')), here] : [here];
const ops = (flags.get('ops') ?? 'sum,mul').split(',');
const pairs = Number(flags.get('pairs') ?? 3);
const load = () => readFileSync('/proc/loadavg', 'utf8').split(' ')[0];
const rows = [];
const loads = [];
for (let p = 0; p < pairs; p++) {
  for (const op of ops) {
    const order = p % 2 === 0 ? roots : [...roots].reverse();
    for (const root of order) {
      loads.push(Number(load()));
      const args = [fileURLToPath(import.meta.url), `--case=${op}`, `--root=${root}`];
      args.push(`--calls=${calls}`, `--warmup=${warmup}`, ...(inProcesses ? ['--processes'] : []));
      const f = JSON.parse(execFileSync(process.execPath, args, { encoding: 'utf8' }).trim());
      const all = f.main + f.rest;
      rows.push([
        `${root} ${op}`,
        f.main.toFixed(2),
        f.rest.toFixed(2),
        all.toFixed(2),
        f.kernel.toFixed(2),
        (all - f.kernel).toFixed(2),
        f.sync.toFixed(2),
        f.faults.toFixed(2),
        String(f.majors),
      ]);
      console.error(rows.at(-1).join('  '));
    }
  }
}
console.log(
  `\nDArray block tasks, ${N}² float64 in ${B}² blocks (${TASKS} tasks a call) on ` +
    `${inProcesses ? '2 worker processes' : '2 worker threads'}, ${calls} calls after ${warmup}, ` +
    `median of 5; load ${Math.min(...loads)}–${Math.max(...loads)}; CPU in µs a block task ` +
    "(sync: the call's synchronous part, the least of all calls, µs of wall a block task; " +
    'faults: minor page faults a block task off the main thread, median of 5; major GCs: the ' +
    "main thread's full collections in all timed calls)\n",
);
console.log(
  table(
    [
      'checkout, operation',
      'main',
      'others',
      'all',
      'kernel',
      'beyond the kernel',
      'sync',
      'faults',
      'major GCs',
    ],
    rows.sort((x, y) => (x[0] < y[0] ? -1 : x[0] > y[0] ? 1 : 0)),
  ),
);

// Task functions for the threads tests, loaded on every thread with
// everywhere(new URL('./__fixtures__/tasks.mjs', import.meta.url), ctx): they travel by
// reference (module + export name) and may use this module's imports and state.
import {
  addThunk,
  exec,
  getDagIds,
  getOptions,
  halt,
  inTask,
  schHandle,
  scope,
  spawn,
  taskProcessor,
  taskSignal,
  withOptions,
} from '@dtask/core';
import { double } from './helper.mjs';

// ------------------------------------------------------------------ basics

/** Where the task runs, e.g. 'thread:1:2'. */
export const whereAmI = () => taskProcessor().id;

let calls = 0;
/** Module state: how many times this thread's copy of the module ran it. */
export function countCall() {
  calls += 1;
  return [taskProcessor().id, calls];
}

/** Uses an imported helper. */
export const useHelper = (x) => double(x);

export const add = (a, b) => a + b;

// ------------------------------------------------------------------ data

/** A result too big to ride back with the completion (8 bytes per element). */
export function makeBig(n, value) {
  return new Float64Array(n).fill(value);
}

/** Like makeBig, counting its runs in `counter[0]` (an Int32Array over a SharedArrayBuffer). */
export function makeBigCounted(counter, n, value) {
  Atomics.add(counter, 0, 1);
  return new Float64Array(n).fill(value);
}

/** [sum, length, where it ran] */
export function sumArray(xs) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return [s, xs.length, taskProcessor().id];
}

/** Writes `value` at `index` of a (shared) typed array in place; returns where it ran. */
export function writeAt(xs, index, value) {
  xs[index] = value;
  return taskProcessor().id;
}

/** Reads `index` of a (shared) typed array. */
export const readAt = (xs, index) => xs[index];

/**
 * Signals that it started, waits (blocking this thread, up to 5 s) until slot 0 of `flags` (an
 * Int32Array over a SharedArrayBuffer) is 1, then reads `xs[index]`: sees a write another
 * thread made meanwhile. Returns how its wait ended ('ok', or 'not-equal' when the write came
 * before the wait began), the value and where it ran.
 */
export function waitThenRead(flags, xs, index) {
  Atomics.store(flags, 1, 1); // "I have started"
  Atomics.notify(flags, 1);
  const outcome = Atomics.wait(flags, 0, 0, 5000);
  return [outcome, xs[index], taskProcessor().id];
}

/**
 * Waits until the reader has started, writes `xs[index] = value`, then wakes it; returns how
 * its wait ended ('timed-out' if the reader never started) and where it ran.
 */
export function writeThenWake(flags, xs, index, value) {
  const outcome = Atomics.wait(flags, 1, 0, 5000);
  xs[index] = value;
  Atomics.store(flags, 0, 1);
  Atomics.notify(flags, 0);
  return [outcome, taskProcessor().id];
}

// ------------------------------------------------------------------ nested

/** Spawns and awaits tasks from inside a task; reports where everything ran. */
export async function nestedSpawn(n) {
  const here = taskProcessor().id;
  const child = spawn(double, n); // an everywhere function, default scope
  const grandchild = spawn(add, child, 1); // takes a task as argument
  const pinned = spawn({ scope: scope({ worker: 1, thread: 3 }) }, whereAmI);
  const [g, p] = await Promise.all([grandchild, pinned]);
  return { here, inTask: inTask(), value: g, pinned: p };
}

/** `withOptions` inside a task: the nested task runs where the options say. */
export async function nestedWithOptions(thread) {
  const t = withOptions({ scope: scope({ worker: 1, thread }), name: 'inner' }, () =>
    spawn(reportOptions),
  );
  return [taskProcessor().id, await t];
}

/** [where, its name option, getOptions() keys] */
export function reportOptions() {
  return [taskProcessor().id, getOptions('name', 'unset')];
}

/** Three levels of tasks, each reporting where it ran (for inherited withOptions scopes). */
export async function nestedChain(depth) {
  const here = taskProcessor().id;
  if (depth <= 1) return [here];
  return [here, ...(await spawn(nestedChain, depth - 1))];
}

/** Like nestedChain, sleeping `ms` first (so that the cost model learns it is slow). */
/** Spawns `n` children on thread `thread` that each sleep `ms`, and awaits them all. */
export async function awaitChildren(n, ms, thread) {
  const on = { scope: scope({ worker: 1, thread }) };
  const children = Array.from({ length: n }, (_, i) => spawn(on, sleep, ms, i));
  return (await Promise.all(children)).reduce((a, b) => a + b, 0);
}

export async function nestedSlowChain(depth, ms) {
  await sleep(ms);
  const here = taskProcessor().id;
  if (depth <= 1) return [here];
  return [here, ...(await spawn(nestedSlowChain, depth - 1, ms))];
}

/**
 * A tree of nested tasks `depth` deep with `fanout` children each: the sum of its leaves,
 * numbered `first` on (`first * n + n(n - 1)/2` for its n = fanout^depth leaves), and the
 * processors its tasks ran on.
 */
export async function nestedTree(depth, fanout, first) {
  const here = taskProcessor().id;
  if (depth === 0) return [first, [here]];
  const size = fanout ** (depth - 1);
  const kids = [];
  for (let i = 0; i < fanout; i++)
    kids.push(spawn(nestedTree, depth - 1, fanout, first + i * size));
  let sum = 0;
  const on = new Set([here]);
  for (const [s, places] of await Promise.all(kids)) {
    sum += s;
    for (const p of places) on.add(p);
  }
  return [sum, [...on].sort()];
}

/**
 * Inside a task: a child placed here, a task on thread `thread` that takes it, one here that
 * takes that, and a failing child placed here with a dependent: what each gave.
 */
export async function nestedAcross(thread) {
  const child = spawn(double, 10);
  const away = spawn({ scope: scope({ worker: 1, thread }) }, add, child, 1);
  const back = spawn(add, away, 100);
  const failing = spawn(throwsWith, 'nested boom');
  const after = spawn(add, failing, 1);
  const outcome = (t) =>
    t.then(
      (v) => ['ok', v],
      (e) => [e.name, e.message],
    );
  return {
    here: taskProcessor().id,
    child: await child,
    away: await outcome(away),
    back: await outcome(back),
    failing: await outcome(failing),
    after: await outcome(after),
  };
}

/** Throws an Error with `message`. */
export function throwsWith(message) {
  throw new Error(message);
}

/** Inside a task: spawns a child waiting for its abort signal, cancels it, reports its outcome. */
export async function nestedCancel() {
  const child = spawn(waitForSignal);
  await new Promise((r) => setTimeout(r, 10));
  const cancelled = child.cancel();
  const error = await child.then(
    () => 'resolved',
    (e) => e.name,
  );
  return [cancelled, error, child.cancel()];
}

/** Resolves once its abort signal fires. */
export function waitForSignal() {
  const signal = taskSignal();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve('aborted')));
}

// ------------------------------------------------------------------ cancellation

export const sleep = (ms, value) => new Promise((resolve) => setTimeout(() => resolve(value), ms));

/** Waits for its abort signal; sets `flags[0] = 1` when it fires. Never resolves otherwise. */
export async function waitForAbort(flags) {
  const signal = taskSignal();
  Atomics.store(flags, 1, 1); // "started"
  await new Promise((resolve) => {
    if (signal.aborted) resolve();
    else signal.addEventListener('abort', () => resolve(), { once: true });
  });
  Atomics.store(flags, 0, 1);
  return 'saw the abort';
}

/** Blocks its thread forever (only terminating the thread stops it); sets `flags[1] = 1` first. */
export function spinForever(flags) {
  Atomics.store(flags, 1, 1);
  for (;;) {
    // busy
  }
}

/**
 * Holds this thread for `ms` without using the CPU: its event loop does not turn meanwhile, as
 * under a CPU-bound task, and the test suite's other work has the core.
 */
function block(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** Holds its thread for `ms`, then throws. */
export function failAfter(ms) {
  block(ms);
  throw new Error('failed on purpose');
}

/** Counts its runs in `counter[0]`, then holds its thread for `ms`. */
export function countThenBusy(counter, ms) {
  Atomics.add(counter, 0, 1);
  block(ms);
  return 'done';
}

// ------------------------------------------------------------------ faults
// Each counts its runs in `counter[0]` and kills its thread on the first `times` runs.

/** Calls process.exit() (which ends only this thread). */
export function exitFirst(counter, times, value) {
  if (Atomics.add(counter, 0, 1) < times) process.exit(7);
  return value;
}

/** Throws an uncaught error from a timer (which ends the thread); the task itself never settles. */
export function throwLaterFirst(counter, times, value) {
  if (Atomics.add(counter, 0, 1) < times) {
    setTimeout(() => {
      throw new Error('uncaught, asynchronously');
    }, 1);
    return new Promise(() => {});
  }
  return value;
}

/** Allocates until the thread's heap limit (resourceLimits) is hit. */
export function exhaustMemoryFirst(counter, times, value) {
  if (Atomics.add(counter, 0, 1) < times) {
    const hog = [];
    for (;;) hog.push(Array.from({ length: 10_000 }, (_, i) => ({ i, s: `x${i}` })));
  }
  return value;
}

/**
 * Counts its runs in `counter[0]` and returns `value`. Its first run says it has started
 * (`counter[1]`), then blocks its thread (up to 10 s): the test ends the thread meanwhile, while
 * the tasks sent ahead behind it wait there.
 */
export function holdFirst(counter, value) {
  if (Atomics.add(counter, 0, 1) === 0) {
    Atomics.store(counter, 1, 1);
    Atomics.wait(counter, 2, 0, 10_000);
  }
  return value;
}

/** `a + b`, counting its runs in `counter[slot]`. */
export function addCounted(counter, slot, a, b) {
  Atomics.add(counter, slot, 1);
  return a + b;
}

// ------------------------------------------------------------------ chaos
// Small Float64Arrays (2 KiB, so they stay on the worker that made them) of simple arithmetic.

const LEN = 256;

/** Holds the thread about `ms`, so that the DAG runs long enough to be hit by kills. */
function work(ms) {
  block(ms);
}

export function leaf(i, ms) {
  work(ms);
  return new Float64Array(LEN).fill(i);
}
export function twice(xs, ms) {
  work(ms);
  return xs.map((x) => x * 2);
}
export function plusOne(xs, ms) {
  work(ms);
  return xs.map((x) => x + 1);
}
export function addArrays(a, b, ms) {
  work(ms);
  return a.map((x, k) => x + b[k]);
}
export function total(xs) {
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

// ------------------------------------------------------------------ transfer

let kept;
/** makeBig, keeping a reference in module state (to observe a transfer: it detaches). */
export function makeKept(n, value) {
  kept = new Float64Array(n).fill(value);
  return kept;
}

/** Bytes of the array makeKept made on this thread (0 once it was transferred away). */
export const keptBytes = () => kept.byteLength;

/** Sums `xs` after `ms` milliseconds (the task holds its argument meanwhile). */
export async function sumAfter(ms, xs) {
  await new Promise((resolve) => setTimeout(resolve, ms));
  let s = 0;
  for (let i = 0; i < xs.length; i++) s += xs[i];
  return s;
}

// ------------------------------------------------------------------ dynamic control

/** schHandle() on a thread: adds a thunk, fetches it, reads the graph, runs code in the scheduler. */
export async function dynamicControl() {
  const h = schHandle();
  const id = addThunk(h, add, 20, 22);
  const sum = await h.fetch(id);
  await h.wait(id);
  const dag = getDagIds(h);
  const ran = await exec(h, (scheduler) => typeof scheduler.submit);
  return { taskId: h.taskId, sum, dag, ran, where: taskProcessor().id };
}

/** The outcome of fetching task `id` through this task's handle: ['ok', value] or [error name, code]. */
export async function fetchThroughHandle(id) {
  try {
    return ['ok', await schHandle().fetch(id)];
  } catch (error) {
    return [error.name, error.code];
  }
}

/**
 * Adds a thunk through this task's handle, then spawns a plain nested task (which this worker
 * may place itself) that fetches the thunk by id through its own handle: [what it got, whether
 * the scheduler's graph listed the thunk once added].
 */
export async function siblingThroughHandle() {
  const h = schHandle();
  const id = addThunk(h, add, 40, 2);
  const known = getDagIds(h).has(id);
  return [await spawn(fetchThroughHandle, id), known];
}

/** Halts the scheduler from a thread (this task fails with CancelledError). */
export async function haltFromThread(ms) {
  halt(schHandle());
  await new Promise((resolve) => setTimeout(resolve, ms));
  return 'not halted';
}

// Seed 003's goal "all CPUs and GPUs used at once": in one graph, a TfjsProc task runs while CPU
// tasks run on both threads, as the tasks' own clocks and the event log both show.
import { disableLogging, enableLogging, fetchLogs, type LogEvent } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { gpuRig } from './__fixtures__/rig.js';
import { gpu } from './index.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

type Window = [processor: string, start: number, end: number];

/** Busy on the CPU for `ms` once the GPU task has started; returns where and when it ran. */
function cpuBusy(seed: number, ms: number, started: SharedArrayBuffer): Window {
  // Waits (at most 20 s) until the GPU task has begun, so that the windows overlap however
  // late a loaded machine starts the GPU thread's task.
  Atomics.wait(new Int32Array(started), 0, 0, 20_000);
  if (Atomics.load(new Int32Array(started), 0) !== 1) throw new Error('the GPU task never started');
  const start = performance.timeOrigin + performance.now();
  let x = seed;
  while (performance.timeOrigin + performance.now() < start + ms)
    x = (x * 1103515245 + 12345) % 2 ** 31;
  return [dtask.taskProcessor().id, start, performance.timeOrigin + performance.now() + x * 0];
}

/**
 * Multiplies 128² matrices on the TfjsProc's backend until `done` (set by the test once a CPU
 * task has finished on each thread) says so, at most `ms` (a hang's bound: the checks below then
 * fail, saying what ran when); returns where and when it ran.
 */
const gpuBusy = gpu(
  (seed: number, ms: number, started: SharedArrayBuffer, done: SharedArrayBuffer): Window => {
    const tf = (globalThis as any).tf;
    Atomics.store(new Int32Array(started), 0, 1);
    Atomics.notify(new Int32Array(started), 0);
    const start = performance.timeOrigin + performance.now();
    let a = tf.fill([128, 128], seed / 128);
    while (
      Atomics.load(new Int32Array(done), 0) === 0 &&
      performance.timeOrigin + performance.now() < start + ms
    ) {
      const next = tf.matMul(a, a).div(128);
      a.dispose();
      a = next;
    }
    a.dispose();
    return [dtask.taskProcessor().id, start, performance.timeOrigin + performance.now()];
  },
);

declare const dtask: typeof import('@dtask/core');

const overlaps = (a: [number, number], b: [number, number]) => a[0] < b[1] && b[0] < a[1];

describe('CPU and GPU work overlap in one graph', () => {
  it('a TfjsProc task runs while CPU tasks run on both threads', async () => {
    const { ctx } = await gpuRig();
    enableLogging();
    fetchLogs();
    const root = ctx.spawn((x: number) => x, 1);
    const started = new SharedArrayBuffer(4);
    const done = new SharedArrayBuffer(4);
    // The GPU task runs until a CPU task has finished on each thread, as this thread saw (after
    // their 'finish' events were logged): an order, however late a loaded machine runs a thread.
    const g = ctx.spawn(gpuBusy, root, 30_000, started, done);
    // CPU leaves of the same graph (each with its own input, so locality does not pile them
    // onto one thread).
    const cpus = [0, 1, 2, 3].map((i) =>
      ctx.spawn(
        cpuBusy,
        ctx.spawn((x: number) => x, i),
        250,
        started,
      ),
    );
    const finishedOn = new Set<string>();
    for (const cpu of cpus) {
      cpu.then(
        ([thread]) => {
          finishedOn.add(thread);
          if (finishedOn.size === 2) Atomics.store(new Int32Array(done), 0, 1);
        },
        () => {}, // the join below fails with the task's error
      );
    }
    const join = ctx.spawn((...ws: Window[]) => ws, g, ...cpus);
    const windows = await join;
    const [gw, ...cw] = windows;
    expect(gw[0]).toBe('tfjs:1:0');
    for (const thread of ['thread:1:2', 'thread:1:3']) {
      const ran = cw.filter((w) => w[0] === thread);
      expect(ran.length).toBeGreaterThan(0);
      expect(ran.some((w) => overlaps([gw[1], gw[2]], [w[1], w[2]]))).toBe(true);
    }
    // The event log shows the same: while the GPU task runs (its start..finish), CPU tasks
    // finish on both threads. (Tasks sent ahead to a thread log no 'start' of their own.)
    const logs = fetchLogs();
    const at = (kind: string, id: number) => logs.find((e) => e.kind === kind && e.task === id);
    expect(at('start', g.id)?.processor).toBe('tfjs:1:0');
    const [from, to] = [at('start', g.id)!.time, at('finish', g.id)!.time];
    for (const thread of ['thread:1:2', 'thread:1:3']) {
      const done = cpus.map((t) => at('finish', t.id)!).filter((e) => e.processor === thread);
      expect(done.some((e: LogEvent) => e.time > from && e.time < to)).toBe(true);
    }
  });
});

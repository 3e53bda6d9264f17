// Seed 003's goal "all CPUs and GPUs used at once": in one graph, a gpu.js task runs on the
// GpujsProc while CPU tasks run on both threads, as the tasks' own clocks and the event log show.
import { disableLogging, enableLogging, fetchLogs, type LogEvent } from '@dtask/core';
import { afterEach, describe, expect, it } from 'vitest';
import { gpujsRig, modesHere } from './__fixtures__/rig.js';
import { gpujsTask } from './index.js';

// Logging is the process's: off again, and its events fetched, for the next file (files share
// processes).
afterEach(() => {
  disableLogging();
  fetchLogs();
});

declare const dtask: typeof import('@dtask/core');

type Window = [processor: string, start: number, end: number];

const MODES = await modesHere();

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
 * Runs a 128² matmul kernel (compiled once, cached) over and over until `done` (set by the test
 * once a CPU task has finished on each thread) says so, at most `ms` (a hang's bound: the checks
 * below then fail, saying what ran when).
 */
const gpuBusy = gpujsTask(
  (seed: number, ms: number, started: SharedArrayBuffer, done: SharedArrayBuffer): Window => {
    const g = (globalThis as any).gpujs;
    const mm = g.kernel(
      'function (a) { let s = 0; for (let k = 0; k < 128; k++) { s += a[this.thread.y * 128 + k] * a[k * 128 + this.thread.x]; } return s / 128; }',
      { output: [128, 128] },
    );
    Atomics.store(new Int32Array(started), 0, 1);
    Atomics.notify(new Int32Array(started), 0);
    const start = performance.timeOrigin + performance.now();
    let a = new Float32Array(128 * 128).fill(seed / 128);
    while (
      Atomics.load(new Int32Array(done), 0) === 0 &&
      performance.timeOrigin + performance.now() < start + ms
    )
      a = g.output(mm(a));
    return [dtask.taskProcessor().id, start, performance.timeOrigin + performance.now()];
  },
);

const overlaps = (a: [number, number], b: [number, number]) => a[0] < b[1] && b[0] < a[1];

describe.each(MODES)('CPU and gpu.js work overlap in one graph (%s mode)', (mode) => {
  it('a GpujsProc task runs while CPU tasks run on both threads', async () => {
    const { ctx } = await gpujsRig({ mode });
    enableLogging();
    fetchLogs();
    const root = ctx.spawn((x: number) => x, 1);
    const started = new SharedArrayBuffer(4);
    const done = new SharedArrayBuffer(4);
    // The GPU task runs until a CPU task has finished on each thread, as this thread saw (after
    // their 'finish' events were logged): an order, however late a loaded machine runs a thread.
    const g = ctx.spawn(gpuBusy, root, 30_000, started, done);
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
    const [gw, ...cw] = await ctx.spawn((...ws: Window[]) => ws, g, ...cpus);
    // What each task saw, relative to the GPU task's start: said when an expectation fails.
    const said = JSON.stringify([gw, ...cw].map(([p, a, b]) => [p, a - gw[1], b - gw[1]]));
    expect(gw[0], said).toBe('gpujs:1:0');
    for (const thread of ['thread:1:2', 'thread:1:3']) {
      const ran = cw.filter((w) => w[0] === thread);
      expect(ran.length, said).toBeGreaterThan(0);
      expect(
        ran.some((w) => overlaps([gw[1], gw[2]], [w[1], w[2]])),
        said,
      ).toBe(true);
    }
    // The event log: while the gpu.js task runs (its start..finish), CPU tasks finish on both
    // threads.
    const logs = fetchLogs();
    const at = (kind: string, id: number) => logs.find((e) => e.kind === kind && e.task === id);
    expect(at('start', g.id)?.processor).toBe('gpujs:1:0');
    const [from, to] = [at('start', g.id)!.time, at('finish', g.id)!.time];
    for (const thread of ['thread:1:2', 'thread:1:3']) {
      const done = cpus.map((t) => at('finish', t.id)!).filter((e) => e.processor === thread);
      const logged = `${said}; gpu logged ${from}..${to}; cpu finishes ${done.map((e) => e.time)}`;
      expect(
        done.some((e: LogEvent) => e.time > from && e.time < to),
        logged,
      ).toBe(true);
    }
  });
});

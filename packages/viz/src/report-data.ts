import type { LogEvent } from '@dtask/core';
import { type PhaseFigures, phaseFigures } from './phase-figures.js';
import { taskBars } from './task-bars.js';
import { type TaskGraph, taskGraph } from './task-graph.js';

export type { BarStatus } from './task-bars.js';

/** The totals a report shows in its summary table (and in `data-summary` attributes). */
export interface ReportSummary {
  /** Distinct tasks seen (spawned, or started when the spawn was not logged). */
  tasks: number;
  /** `fail` events. */
  failures: number;
  /** Milliseconds from the first event to the end of the last. */
  wallTime: number;
  /** Bytes of all `move` events. */
  bytesMoved: number;
  /** `move` events. */
  moves: number;
  /** Bytes of all `spill` events of the whole run (`phases` has each phase's). */
  bytesSpilled: number;
  /** Bytes of all `unspill` events of the whole run (`phases` has each phase's). */
  bytesUnspilled: number;
}

/**
 * The compact data a report embeds as JSON: strings once in `names`/`processors`, bars as
 * one flat number array (seven numbers a bar) so 100,000 tasks stay a few megabytes.
 */
export interface ReportData {
  /** Time origin (ms) of every `start` below. */
  origin: number;
  /** Task names (`?` for unnamed tasks); bars refer to them by index. */
  names: string[];
  /** Processor ids, one Gantt lane each, in order of first use. */
  processors: string[];
  /**
   * Bars, flat: `[task, nameIndex, processorIndex, start, duration, status, bytes]` repeated;
   * `start` relative to `origin`, `bytes` the size of the result or -1 if unknown.
   */
  bars: number[];
  /**
   * Busy milliseconds per processor, same order as `processors`: the union of its bars, since
   * a processor may run several tasks at once (async tasks; or, without `run` spans, tasks a
   * thread was sent and had not begun).
   */
  busy: number[];
  /** Moves per processor pair: `[from, to, bytes, count]`. */
  transfers: [string, string, number, number][];
  /** Bytes held on each storage device over the run (from spills and unspills): `[time, bytes]`. */
  spills: { device: string; points: [number, number][] }[];
  /**
   * Memory in use per OS process over the run, from `memory` events (`bytes` in use by
   * `worker`; the dashboard logs its own process's): `[time, bytes]`.
   */
  memory: { worker: number; points: [number, number][] }[];
  /**
   * CPU use per OS process over the run, from `cpu` events: `[time, cores]`, the cores it kept
   * busy (`cpuTime / duration`) over the span that ends at `time`.
   */
  cpu: { worker: number; points: [number, number][] }[];
  /** Each task's inputs, flat: `[task, count, input1, …, inputCount]` repeated (for hover). */
  inputs: number[];
  /** The task graph from the `spawn` events' `inputs`, laid out (collapsed by name when large). */
  graph: TaskGraph;
  /** The totals. */
  summary: ReportSummary;
  /** Figures of each named phase (`phase` events), in time order; empty when none was logged. */
  phases: PhaseFigures[];
}

/** Number of entries a bar takes in `ReportData.bars`. */
export const BAR_WIDTH = 7;

/**
 * Turns `fetchLogs()` events into the data of a report; called by `writeReport` and the
 * dashboard. Draws a bar for every run of a task on a processor (`taskBars`): over the `run`
 * span its runtime recorded when there is one (when it really ran), else from its `start` to
 * its end; one not ended is drawn up to the last event (status 3). Each processor's count is
 * what ran there.
 */
export function summarise(logs: readonly LogEvent[]): ReportData {
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const processors: string[] = [];
  const processorIndex = new Map<string, number>();
  const taskNames = new Map<number, string>();
  const tasks = new Set<number>();
  const bars: number[] = [];
  const busy: number[] = [];
  const transfers = new Map<string, [string, string, number, number]>();
  const inputs = new Map<number, number[]>();
  const failed = new Set<number>();
  const memory = new Map<number, [number, number][]>();
  const cpu = new Map<number, [number, number][]>();
  const spillLevel = new Map<string, { level: number; points: [number, number][] }>();
  const summary: ReportSummary = {
    tasks: 0,
    failures: 0,
    wallTime: 0,
    bytesMoved: 0,
    moves: 0,
    bytesSpilled: 0,
    bytesUnspilled: 0,
  };
  let origin = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  const sorted = inTimeOrder(logs);

  const nameOf = (name: string): number => {
    let i = nameIndex.get(name);
    if (i === undefined) {
      i = names.length;
      names.push(name);
      nameIndex.set(name, i);
    }
    return i;
  };
  const processorOf = (id: string): number => {
    let i = processorIndex.get(id);
    if (i === undefined) {
      i = processors.length;
      processors.push(id);
      processorIndex.set(id, i);
      busy.push(0);
    }
    return i;
  };
  const level = (device: string, time: number, delta: number): void => {
    let entry = spillLevel.get(device);
    if (entry === undefined) {
      entry = { level: 0, points: [] };
      spillLevel.set(device, entry);
    }
    entry.level = Math.max(0, entry.level + delta);
    entry.points.push([time, entry.level]);
  };

  for (const e of sorted) {
    const stop = e.time + (e.duration ?? 0);
    if (e.time < origin) origin = e.time;
    if (stop > end) end = stop;
    if (e.task !== undefined && e.name !== undefined) taskNames.set(e.task, e.name);
    switch (e.kind) {
      case 'spawn':
        if (e.task !== undefined) {
          tasks.add(e.task);
          if (Array.isArray(e.inputs) && e.inputs.length > 0) inputs.set(e.task, e.inputs);
        }
        break;
      case 'memory':
        if (typeof e.bytes === 'number') {
          const worker = e.worker ?? 1;
          const points = memory.get(worker) ?? [];
          points.push([e.time, e.bytes]);
          memory.set(worker, points);
        }
        break;
      case 'cpu':
        if (typeof e.cpuTime === 'number' && typeof e.duration === 'number' && e.duration > 0) {
          const worker = e.worker ?? 1;
          const points = cpu.get(worker) ?? [];
          points.push([stop, e.cpuTime / e.duration]);
          cpu.set(worker, points);
        }
        break;
      case 'start':
        if (e.task !== undefined) tasks.add(e.task);
        break;
      case 'fail':
        summary.failures++;
        if (e.task !== undefined) failed.add(e.task);
        break;
      case 'move': {
        const from = e.from ?? '?';
        const to = e.to ?? e.processor ?? '?';
        const key = `${from}\u0000${to}`;
        const pair = transfers.get(key) ?? [from, to, 0, 0];
        pair[2] += e.bytes ?? 0;
        pair[3]++;
        transfers.set(key, pair);
        summary.bytesMoved += e.bytes ?? 0;
        summary.moves++;
        break;
      }
      case 'spill':
        summary.bytesSpilled += e.bytes ?? 0;
        level(e.to ?? e.detail ?? 'storage', e.time, e.bytes ?? 0);
        break;
      case 'unspill':
        summary.bytesUnspilled += e.bytes ?? 0;
        level(e.from ?? e.detail ?? 'storage', e.time, -(e.bytes ?? 0));
        break;
    }
  }
  if (origin === Number.POSITIVE_INFINITY) origin = end = 0;
  taskBars(sorted, end, (b) => {
    if (b.task >= 0) tasks.add(b.task);
    const name = b.name ?? taskNames.get(b.task) ?? '?';
    const duration = b.stop - b.start;
    bars.push(b.task, nameOf(name), processorOf(b.processor), b.start, duration, b.status, b.bytes);
  });
  for (let i = 3; i < bars.length; i += BAR_WIDTH) bars[i] -= origin;
  busyTimes(bars, busy);
  summary.tasks = tasks.size;
  summary.wallTime = end - origin;
  const spills = [...spillLevel].map(([device, { points }]) => ({ device, points }));
  const graph = taskGraph({
    ids: [...tasks],
    nameOf: (id) => nameOf(taskNames.get(id) ?? '?'),
    failed: (id) => failed.has(id),
    inputs,
    names,
  });
  const rebase = (points: [number, number][]) =>
    points.map(([t, v]): [number, number] => [t - origin, v]);
  const flatInputs: number[] = [];
  for (const [task, list] of inputs) flatInputs.push(task, list.length, ...list);
  return {
    origin,
    names,
    processors,
    bars,
    busy,
    transfers: [...transfers.values()],
    spills: spills.map(({ device, points }) => ({ device, points: rebase(points) })),
    memory: perWorker(memory, rebase),
    cpu: perWorker(cpu, rebase),
    inputs: flatInputs,
    graph,
    summary,
    phases: phaseFigures(sorted, bars, origin),
  };
}

function perWorker(
  series: Map<number, [number, number][]>,
  rebase: (points: [number, number][]) => [number, number][],
): { worker: number; points: [number, number][] }[] {
  return [...series]
    .sort((a, b) => a[0] - b[0])
    .map(([worker, points]) => ({ worker, points: rebase(points) }));
}

/** `logs` in time order: as they are when already so (`fetchLogs()`), else a sorted copy. */
function inTimeOrder(logs: readonly LogEvent[]): readonly LogEvent[] {
  for (let i = 1; i < logs.length; i++) {
    if (logs[i].time < logs[i - 1].time) return logs.slice().sort((a, b) => a.time - b.time);
  }
  return logs;
}

/** Fills `busy[p]` with the length of the union of processor `p`'s bars. */
function busyTimes(bars: readonly number[], busy: number[]): void {
  const spans = busy.map((): [number, number][] => []);
  for (let i = 0; i < bars.length; i += BAR_WIDTH)
    spans[bars[i + 2]].push([bars[i + 3], bars[i + 3] + bars[i + 4]]);
  spans.forEach((list, p) => {
    list.sort((a, b) => a[0] - b[0]);
    let total = 0;
    let from = Number.NEGATIVE_INFINITY;
    let to = Number.NEGATIVE_INFINITY;
    for (const [s, e] of list) {
      if (s > to) {
        if (to > from) total += to - from;
        from = s;
        to = e;
      } else if (e > to) to = e;
    }
    if (to > from) total += to - from;
    busy[p] = total;
  });
}

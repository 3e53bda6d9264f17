import type { LogEvent } from '@dtask/core';
import { type TaskGraph, taskGraph } from './task-graph.js';

/** How a bar ended: 0 finished, 1 failed, 2 cancelled, 3 still running when the logs were read. */
export type BarStatus = 0 | 1 | 2 | 3;

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
  /** Bytes of all `spill` events. */
  bytesSpilled: number;
  /** Bytes of all `unspill` events. */
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
  /** Each task's inputs, flat: `[task, count, input1, …, inputCount]` repeated (for hover). */
  inputs: number[];
  /** The task graph from the `spawn` events' `inputs`, laid out (collapsed by name when large). */
  graph: TaskGraph;
  /** The totals. */
  summary: ReportSummary;
}

/** Number of entries a bar takes in `ReportData.bars`. */
export const BAR_WIDTH = 7;

/**
 * Turns `fetchLogs()` events into the data of a report; called by `writeReport` and the
 * dashboard. Pairs each `start` with the next `finish`/`fail`/`cancel` of the same task on
 * the same processor, drawn over the `run` span its runtime recorded if there is one (when it
 * really ran), else from start to end; a start with no end is drawn up to the last event
 * (status 3).
 */
export function summarise(logs: readonly LogEvent[]): ReportData {
  const names: string[] = [];
  const nameIndex = new Map<string, number>();
  const processors: string[] = [];
  const processorIndex = new Map<string, number>();
  const taskNames = new Map<number, string>();
  const tasks = new Set<number>();
  const open = new Map<string, LogEvent>();
  const runs = new Map<string, LogEvent>(); // `run` spans by task and processor
  const bars: number[] = [];
  const busy: number[] = [];
  const transfers = new Map<string, [string, string, number, number]>();
  const inputs = new Map<number, number[]>();
  const failed = new Set<number>();
  const memory = new Map<number, [number, number][]>();
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
  const bar = (start: LogEvent, stop: number, status: BarStatus, bytes: number): void => {
    const task = start.task ?? -1;
    const p = processorOf(start.processor ?? '?');
    const name = start.name ?? taskNames.get(task) ?? '?';
    const duration = Math.max(0, stop - start.time);
    bars.push(task, nameOf(name), p, start.time, duration, status, bytes);
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

  for (const e of logs) {
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
      case 'run':
        runs.set(`${e.task}|${e.processor}`, e);
        break;
      case 'start':
        if (e.task !== undefined) tasks.add(e.task);
        open.set(`${e.task}|${e.processor}`, e);
        break;
      case 'finish':
      case 'fail':
      case 'cancel': {
        if (e.kind === 'fail') {
          summary.failures++;
          if (e.task !== undefined) failed.add(e.task);
        }
        const key = `${e.task}|${e.processor}`;
        const started = open.get(key);
        if (started === undefined) break;
        open.delete(key);
        const status: BarStatus = e.kind === 'finish' ? 0 : e.kind === 'fail' ? 1 : 2;
        // The span it really ran, where its runtime recorded one (a thread's `start` is when
        // it was sent, and it may have waited there behind others).
        const run = runs.get(key);
        runs.delete(key);
        if (run !== undefined && run.time >= started.time) {
          bar(
            { ...started, time: run.time },
            run.time + (run.duration ?? 0),
            status,
            e.bytes ?? -1,
          );
        } else bar(started, e.time, status, e.bytes ?? -1);
        break;
      }
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
  for (const started of open.values()) bar(started, end, 3, -1);
  if (origin === Number.POSITIVE_INFINITY) origin = end = 0;
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
    memory: [...memory]
      .sort((a, b) => a[0] - b[0])
      .map(([worker, points]) => ({
        worker,
        points: rebase(points),
      })),
    inputs: flatInputs,
    graph,
    summary,
  };
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

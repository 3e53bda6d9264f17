import type { LogEvent } from '@dtask/core';

/** How a bar ended: 0 finished, 1 failed, 2 cancelled, 3 still running when the logs were read. */
export type BarStatus = 0 | 1 | 2 | 3;

/** One run of a task on a processor, as the views draw it. */
export interface TaskBar {
  task: number;
  /** The name of its events, when they have one. */
  name: string | undefined;
  processor: string;
  /** When it began (ms, on the log's clock). */
  start: number;
  /** When it ended. */
  stop: number;
  status: BarStatus;
  /** Size of the result (`finish`'s `bytes`), or -1 when unknown. */
  bytes: number;
}

const END_STATUS: Record<string, BarStatus> = { finish: 0, fail: 1, cancel: 2 };

/**
 * Pairs the task events of `logs` into bars, one per run of a task on a processor, and calls
 * `draw` with each; called by `summarise`. A task is drawn over its `run` span when its runtime
 * recorded one (when it really ran on that worker thread or process), else from its `start`
 * (sent) to its end (`finish`/`fail`/`cancel` on the same processor): the calling thread's runs
 * have no `run` span. A run ended neither way is drawn up to `end` with status 3. A task that
 * never started anywhere (failed with an upstream task, cancelled while waiting) has no bar.
 * `logs` must be in time order (as `fetchLogs()` returns them).
 */
export function taskBars(logs: readonly LogEvent[], end: number, draw: (bar: TaskBar) => void) {
  const starts = new Map<string, LogEvent>(); // open `start`s by task and processor
  const runs = new Map<string, LogEvent>(); // `run` spans by task and processor, until the end
  for (const e of logs) {
    if (e.task === undefined) continue;
    const kind = e.kind;
    if (kind === 'start') starts.set(`${e.task}|${e.processor}`, e);
    else if (kind === 'run') runs.set(`${e.task}|${e.processor}`, e);
    else if (kind in END_STATUS) {
      const key = `${e.task}|${e.processor}`;
      const start = starts.get(key);
      const run = runs.get(key);
      if (start === undefined && run === undefined) continue;
      starts.delete(key);
      runs.delete(key);
      draw(barOf(start, run, e.time, END_STATUS[kind], e, e.bytes ?? -1));
    }
  }
  for (const [key, start] of starts) {
    const run = runs.get(key);
    runs.delete(key);
    draw(barOf(start, run, end, 3, undefined, -1));
  }
  for (const run of runs.values()) draw(barOf(undefined, run, end, 3, undefined, -1));
}

function barOf(
  start: LogEvent | undefined,
  run: LogEvent | undefined,
  stop: number,
  status: BarStatus,
  ended: LogEvent | undefined,
  bytes: number,
): TaskBar {
  const first = (run ?? start) as LogEvent;
  const name = start?.name ?? ended?.name ?? run?.name;
  const from = run !== undefined ? run.time : first.time;
  const to = run !== undefined ? run.time + Math.max(0, run.duration ?? 0) : stop;
  return {
    task: first.task as number,
    name,
    processor: first.processor ?? '?',
    start: from,
    stop: Math.max(from, to),
    status,
    bytes,
  };
}

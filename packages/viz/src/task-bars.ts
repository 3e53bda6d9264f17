import type { LogEvent } from '@dtask/core';
import { taskRuns } from '@dtask/core/plugin';

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
 * Calls `draw` with a bar for each run of a task on a processor in `logs` (core's `taskRuns`
 * pairs the events); called by `summarise`. A task is drawn over its `run` span when its
 * runtime recorded one (when it really ran on that worker thread or process), else from its
 * `start` (sent) to its end (`finish`/`fail`/`cancel`): the calling thread's runs have no `run`
 * span. A run ended neither way is drawn up to `end` with status 3. A task that never started
 * anywhere (failed with an upstream task, cancelled while waiting) has no bar. `logs` must be
 * in time order (as `fetchLogs()` returns them).
 */
export function taskBars(logs: readonly LogEvent[], end: number, draw: (bar: TaskBar) => void) {
  taskRuns(logs, (r) => {
    if (r.start === undefined && r.run === undefined) return;
    const first = (r.run ?? r.start) as LogEvent;
    const from = r.run !== undefined ? r.run.time : first.time;
    const to =
      r.run !== undefined ? r.run.time + Math.max(0, r.run.duration ?? 0) : (r.end?.time ?? end);
    draw({
      task: r.task,
      name: r.start?.name ?? r.end?.name ?? r.run?.name,
      processor: r.processor ?? first.processor ?? '?',
      start: from,
      stop: Math.max(from, to),
      status: r.end === undefined ? 3 : END_STATUS[r.end.kind],
      bytes: r.end?.bytes ?? -1,
    });
  });
}

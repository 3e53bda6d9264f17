import type { LogEvent } from './log-event.js';

/** The kinds that end a run of a task. */
export const TASK_END_KINDS: ReadonlySet<string> = new Set(['finish', 'fail', 'cancel']);

/** One run of a task, as the log tells it. */
export interface TaskRun {
  readonly task: number;
  /** When it was sent (`start`), where logged. */
  readonly start: LogEvent | undefined;
  /** The span its runtime recorded while it really ran (`run`), where there is one. */
  readonly run: LogEvent | undefined;
  /** How it ended (`finish`, `fail`, `cancel`); undefined if it had not ended in these logs. */
  readonly end: LogEvent | undefined;
  /** Where it ran: the end's processor, else the run span's, else the start's. */
  readonly processor: string | undefined;
}

const keyOf = (task: number, processor: string | undefined) => `${task}|${processor}`;

/**
 * Pairs the task events of `sorted` (in time order) into runs, one per run of a task on a
 * processor, and calls `visit` with each: ended runs in the order of their ends, then those
 * still open. The views (report bars, Chrome trace slices) draw from these, so each task run
 * is drawn once however its events were ordered:
 * - an end takes the task's open `start` on its processor, else the task's latest open one (a
 *   task handed back by one worker and run by another ends where it ran);
 * - a `run` span pairs with its run's end even where it sorts after that end: a worker
 *   process records spans on its own clock, corrected by an estimate that may be off by more
 *   than a tiny task's run.
 * An end with neither an open start nor a run span is visited alone (`start` and `run`
 * undefined).
 */
export function taskRuns(sorted: readonly LogEvent[], visit: (run: TaskRun) => void): void {
  const spans = new Map<string, LogEvent[]>(); // run spans by task and processor, in time order
  for (const e of sorted) {
    if (e.kind !== 'run' || e.task === undefined) continue;
    const key = keyOf(e.task, e.processor);
    const list = spans.get(key);
    if (list === undefined) spans.set(key, [e]);
    else list.push(e);
  }
  const takeSpan = (task: number, ...processors: (string | undefined)[]) => {
    for (const processor of processors) {
      const span = spans.get(keyOf(task, processor))?.shift();
      if (span !== undefined) return span;
    }
    return undefined;
  };
  const open = new Map<number, LogEvent[]>(); // open starts by task
  for (const e of sorted) {
    if (e.task === undefined) continue;
    if (e.kind === 'start') {
      const list = open.get(e.task);
      if (list === undefined) open.set(e.task, [e]);
      else list.push(e);
    } else if (TASK_END_KINDS.has(e.kind)) {
      const start = takeStart(open, e);
      const run = takeSpan(e.task, e.processor, start?.processor);
      visit({ task: e.task, start, run, end: e, processor: e.processor ?? run?.processor });
    }
  }
  for (const starts of open.values()) {
    for (const start of starts) {
      const run = takeSpan(start.task!, start.processor);
      const processor = run?.processor ?? start.processor;
      visit({ task: start.task!, start, run, end: undefined, processor });
    }
  }
  for (const list of spans.values()) {
    for (const run of list) {
      visit({ task: run.task!, start: undefined, run, end: undefined, processor: run.processor });
    }
  }
}

/** The open start an end closes: on its processor, else the latest; undefined if none. */
function takeStart(open: Map<number, LogEvent[]>, end: LogEvent): LogEvent | undefined {
  const starts = open.get(end.task!);
  if (starts === undefined) return undefined;
  let index = starts.length - 1;
  if (end.processor !== undefined) {
    const same = starts.findLastIndex((s) => s.processor === end.processor);
    if (same >= 0) index = same;
  }
  const [start] = starts.splice(index, 1);
  if (starts.length === 0) open.delete(end.task!);
  return start;
}

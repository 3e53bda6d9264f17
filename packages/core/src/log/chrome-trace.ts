import { ArgumentError } from '../errors/errors.js';
import type { LogEvent } from './log-event.js';
import { TASK_END_KINDS, taskRuns } from './task-runs.js';

/**
 * The main thread's processor id; spawns are drawn on its track. The same value as
 * `MAIN_THREAD_ID` in `processor/thread-proc.ts`, repeated so that `log/` imports nothing
 * but errors and `processor/` can log without an import cycle.
 */
const MAIN_THREAD = 'thread:1:1';

/** One entry of the Chrome Trace Event format (the subset this file writes). */
interface TraceEvent {
  name: string;
  ph: 'X' | 'i' | 'M' | 's' | 'f';
  ts: number;
  pid: number;
  tid: number;
  cat?: string;
  dur?: number;
  s?: 't';
  /** Flow events: the id that binds a start (`s`) to its finish (`f`). */
  id?: number;
  /** Flow finish: `e` binds it to the slice enclosing it (not the next one). */
  bp?: 'e';
  args?: Record<string, unknown>;
}

/** A timeline row: a processor, or a worker's `moves` or `storage` row. */
interface Track {
  pid: number;
  name: string;
  /** Processors first, then moves, then storage, within a worker. */
  rank: 0 | 1 | 2;
  tid: number;
}

/**
 * Compares names with their numbers by value ("thread 2" before "thread 10"). Made on first use:
 * a collator costs about 9 ms of CPU to make (ICU loads its data), which every process and
 * thread that loads the package would otherwise pay at start, traces or not.
 */
let numericCompare: ((a: string, b: string) => number) | undefined;

function byNumericName(a: string, b: string): number {
  numericCompare ??= new Intl.Collator('en', { numeric: true }).compare;
  return numericCompare(a, b);
}

/**
 * Converts events from `fetchLogs()` to Chrome Trace Event JSON, which Perfetto
 * (ui.perfetto.dev) and chrome://tracing open; called by the user. The input is not changed
 * and may be in any order.
 *
 * Guarantees: `{ traceEvents, displayTimeUnit: 'ms' }`; `ts`/`dur` in microseconds from the
 * earliest event; `pid` is the worker (1 = main process); each processor id has one `tid`,
 * unique in the whole trace and numbered in (worker, processor id) order. Every run of a task
 * is one complete (`X`) event on the processor where it ran, named after the task (or `#id`):
 * over the `run` span its runtime recorded when there is one (`args.queued_ms`: how long it
 * waited there after it was sent), else from its `start` to its `finish`/`fail`/`cancel`; a
 * run never ended lasts to the last event with `args.unfinished: true`.
 * Spawns are instants on the main thread; moves are on a `moves` row of the receiving
 * worker, spills and unspills on a `storage` row (spans with a `duration`, else instants);
 * other kinds are instants on their processor. A move naming the task it moved for (`task`)
 * and the task that produced the data (`input`) also gets a flow arrow (a `s`/`f` pair with
 * one `id`, numbering such moves from 0 in time order; category `move`) from the producer's slice to the consumer's, each bound to the
 * slice on the processor the data left (`from`) and reached (`to`) when there is one. Every
 * pid and tid used is named by a metadata (`M`) event.
 * @throws ArgumentError (`DTASK_ARGUMENT`) when `logs` is not an array of events with a
 * string `kind` and a finite `time`.
 */
export function toChromeTrace(logs: readonly LogEvent[]): string {
  validateLogs(logs);
  const sorted = logs.slice().sort((a, b) => a.time - b.time);
  if (sorted.length === 0) return JSON.stringify({ traceEvents: [], displayTimeUnit: 'ms' });

  const origin = sorted[0].time;
  let last = origin;
  for (const event of sorted) last = Math.max(last, event.time + positive(event.duration));

  const tracks = new Map<string, Track>();
  const placed: Array<{ event: TraceEvent; track: Track }> = [];
  const track = (pid: number, name: string, rank: Track['rank']): Track => {
    const key = `${pid}\u0000${rank}\u0000${name}`;
    let found = tracks.get(key);
    if (found === undefined) tracks.set(key, (found = { pid, name, rank, tid: 0 }));
    return found;
  };
  const processorTrack = (event: LogEvent): Track =>
    track(workerOf(event, event.processor), event.processor ?? 'tasks', 0);
  const emit = (at: Track, event: Omit<TraceEvent, 'pid' | 'tid'>): void => {
    placed.push({ event: { ...event, pid: at.pid, tid: 0 }, track: at });
  };
  const instant = (at: Track, name: string, time: number, cat: string, args: object): void => {
    emit(at, { name, cat, ph: 'i', s: 't', ts: micros(time - origin), args: { ...args } });
  };
  const span = (at: Track, name: string, from: number, to: number, cat: string, args: object) => {
    emit(at, {
      name,
      cat,
      ph: 'X',
      ts: micros(from - origin),
      dur: micros(Math.max(0, to - from)),
      args: { ...args },
    });
  };

  // Each task's slices, to bind the flow arrows of moves to.
  const slices = new Map<number, Slice[]>();
  const taskSpan = (start: LogEvent, name: string, to: number, args: object): void => {
    const at = processorTrack(start);
    span(at, name, start.time, to, 'task', args);
    const slice = { track: at, processor: start.processor, time: start.time };
    const list = slices.get(start.task!);
    if (list === undefined) slices.set(start.task!, [slice]);
    else list.push(slice);
  };
  // A task's slice: the span it really ran (`run`) where its runtime recorded one, else from
  // when it was sent (`start`) to `end`.
  const drawRun = (
    start: LogEvent | undefined,
    run: LogEvent | undefined,
    name: string,
    end: number,
    args: Record<string, unknown>,
  ): void => {
    if (run === undefined) {
      taskSpan(start as LogEvent, name, end, args);
      return;
    }
    if (start !== undefined && run.time >= start.time) args.queued_ms = run.time - start.time;
    const ran = { ...(start ?? run), processor: run.processor ?? start?.processor, time: run.time };
    taskSpan(ran, name, run.time + positive(run.duration), args);
  };
  const flows: LogEvent[] = [];
  // Task names from any event that has one (a runtime's `run` may lack it).
  const names = new Map<number, string>();
  const nameOf = (...events: (LogEvent | undefined)[]): string => {
    for (const event of events) if (event?.name !== undefined) return event.name;
    const task = events.find((e) => e !== undefined)?.task as number;
    return names.get(task) ?? `#${task}`;
  };
  for (const event of sorted) {
    if (event.task !== undefined && event.name !== undefined && !names.has(event.task)) {
      names.set(event.task, event.name);
    }
  }
  taskRuns(sorted, ({ start, run, end, processor }) => {
    if (end === undefined) {
      const first = (start ?? run) as LogEvent;
      drawRun(start, run, nameOf(start, run), last, { ...taskArgs(first), unfinished: true });
    } else if (start === undefined && run === undefined) {
      // An end that cannot be paired: a mark where it happened.
      const name = `${end.kind} ${taskName(end)}`;
      instant(processorTrack(end), name, end.time, end.kind, { ...dataArgs(end), kind: end.kind });
    } else {
      const args = withoutUndefined({ ...taskArgs(start ?? end), ...taskArgs(end), processor });
      args.status = end.kind;
      drawRun(start, run, nameOf(start, end, run), end.time, args);
    }
  });
  for (const event of sorted) {
    const { kind } = event;
    if (kind === 'spawn') {
      instant(track(1, MAIN_THREAD, 0), taskName(event), event.time, 'task', taskArgs(event));
    } else if (
      event.task !== undefined &&
      (kind === 'start' || kind === 'run' || TASK_END_KINDS.has(kind))
    ) {
      // Drawn above, as runs.
    } else if (kind === 'move' || kind === 'spill' || kind === 'unspill') {
      const pid = kind === 'move' ? workerOf(event, event.to) : workerOf(event, event.processor);
      const at = track(pid, kind === 'move' ? 'moves' : 'storage', kind === 'move' ? 1 : 2);
      const args = dataArgs(event);
      const name = event.name ?? kind;
      if (kind === 'move' && event.task !== undefined && event.input !== undefined) {
        flows.push(event);
      }
      if (positive(event.duration) > 0) {
        span(at, name, event.time, event.time + positive(event.duration), kind, args);
      } else instant(at, name, event.time, kind, args);
    } else {
      // A plugin's own kind, or a task event without a task.
      const name = event.task !== undefined ? `${kind} ${taskName(event)}` : kind;
      instant(processorTrack(event), name, event.time, kind, { ...dataArgs(event), kind });
    }
  }
  flows.forEach((move, id) => {
    const from = sliceOn(slices.get(move.input!), move.from);
    const to = sliceOn(slices.get(move.task!), move.to);
    if (from === undefined || to === undefined) return;
    const name = move.name ?? 'move';
    const args = dataArgs(move);
    emit(from.track, { name, cat: 'move', ph: 's', id, ts: micros(from.time - origin), args });
    emit(to.track, { name, cat: 'move', ph: 'f', bp: 'e', id, ts: micros(to.time - origin) });
  });

  const events = resolve(tracks, placed); // numbers the tracks, so before metadata()
  const traceEvents = [...metadata(tracks), ...events];
  return JSON.stringify({ traceEvents, displayTimeUnit: 'ms' });
}

/** A task's slice on a processor's track: where a flow arrow of a move binds. */
interface Slice {
  track: Track;
  processor: string | undefined;
  time: number;
}

/** The task's slice on `processor`, else its last one. */
function sliceOn(list: Slice[] | undefined, processor: string | undefined): Slice | undefined {
  if (list === undefined) return undefined;
  return list.findLast((s) => s.processor === processor) ?? list[list.length - 1];
}

/** Numbers the tracks in display order and returns the events, sorted by time, with tids. */
function resolve(
  tracks: Map<string, Track>,
  placed: Array<{ event: TraceEvent; track: Track }>,
): TraceEvent[] {
  const ordered = [...tracks.values()].sort(
    (a, b) => a.pid - b.pid || a.rank - b.rank || byNumericName(a.name, b.name),
  );
  ordered.forEach((t, i) => {
    t.tid = i + 1;
  });
  return placed
    .map(({ event, track }) => ({ ...event, tid: track.tid }))
    .sort((a, b) => a.ts - b.ts);
}

/** `process_name` 'worker N' per pid, `thread_name` per tid, plus sort indexes. */
function metadata(tracks: Map<string, Track>): TraceEvent[] {
  const out: TraceEvent[] = [];
  const pids = [...new Set([...tracks.values()].map((t) => t.pid))].sort((a, b) => a - b);
  for (const pid of pids) {
    out.push({
      name: 'process_name',
      ph: 'M',
      ts: 0,
      pid,
      tid: 0,
      args: { name: `worker ${pid}` },
    });
    out.push({
      name: 'process_sort_index',
      ph: 'M',
      ts: 0,
      pid,
      tid: 0,
      args: { sort_index: pid },
    });
  }
  const ordered = [...tracks.values()].sort((a, b) => a.tid - b.tid);
  for (const { pid, tid, name } of ordered) {
    out.push({ name: 'thread_name', ph: 'M', ts: 0, pid, tid, args: { name } });
    out.push({ name: 'thread_sort_index', ph: 'M', ts: 0, pid, tid, args: { sort_index: tid } });
  }
  return out;
}

/** Removes and returns the open start an end closes: the one on its processor, else the latest. */
function taskName(...events: LogEvent[]): string {
  for (const event of events) if (event.name !== undefined) return event.name;
  return `#${events[0].task}`;
}

function taskArgs(event: LogEvent): Record<string, unknown> {
  const { task, processor, bytes, detail } = event;
  return withoutUndefined({ task, processor, bytes, detail });
}

function dataArgs(event: LogEvent): Record<string, unknown> {
  const { task, processor, bytes, from, to, duration, detail } = event;
  return withoutUndefined({ task, processor, bytes, from, to, duration, detail });
}

function withoutUndefined(record: Record<string, unknown>): Record<string, unknown> {
  for (const key of Object.keys(record)) if (record[key] === undefined) delete record[key];
  return record;
}

/** The event's worker, else the worker in a processor id like `thread:2:3`, else 1 (main). */
function workerOf(event: LogEvent, processor: string | undefined): number {
  if (Number.isSafeInteger(event.worker)) return event.worker!;
  const match = processor === undefined ? null : /^[^:]+:(\d+)(?::|$)/.exec(processor);
  return match === null ? 1 : Number(match[1]);
}

function positive(value: number | undefined): number {
  return typeof value === 'number' && value > 0 && Number.isFinite(value) ? value : 0;
}

/** Milliseconds to microseconds, rounded to the nanosecond to hide float noise. */
function micros(ms: number): number {
  return Math.round(ms * 1e6) / 1e3;
}

function validateLogs(logs: readonly LogEvent[]): void {
  if (!Array.isArray(logs)) {
    throw new ArgumentError('toChromeTrace(logs) expects the array that fetchLogs() returns');
  }
  for (let i = 0; i < logs.length; i++) {
    const event: unknown = logs[i];
    if (
      typeof event !== 'object' ||
      event === null ||
      typeof (event as LogEvent).kind !== 'string' ||
      !Number.isFinite((event as LogEvent).time)
    ) {
      throw new ArgumentError(
        `toChromeTrace: logs[${i}] is not a log event; each needs a string kind and a finite time (ms)`,
      );
    }
  }
}

/**
 * What happened to a task or a piece of data, recorded by the scheduler, the runtimes and
 * the storage devices while logging is on, read back with `fetchLogs()`, and drawn by
 * `toChromeTrace()`.
 *
 * Plain data only (strings and numbers; no class instances, functions or symbols), so it
 * survives `structuredClone`: worker threads and processes collect their events and send
 * them to the main process in batches (`recordEvents`).
 *
 * Kinds and their conventions:
 * - `spawn`: the scheduler recorded a task (`task`, `name`, and in `inputs` the ids of the
 *   tasks it takes results from or waits for: the edges of the task graph).
 * - `start` / `finish` / `fail` / `cancel`: a task was sent to, or ended on, `processor`: every
 *   task placed has a `start`, also one sent ahead to the worker making its inputs; `bytes` on
 *   `finish` is the size of the result. A task re-run after a lost worker has several
 *   `start`s; an end is paired with the open `start` on the same `processor`.
 * - `run`: the span a task really ran on a worker thread or process (`time`, `duration`,
 *   `processor`), recorded by the runtime there; a thread's `start` is logged when the scheduler
 *   sends it the task, which may wait there behind others, so views draw a task from its `run`
 *   span when there is one (and from `start` to its end on the calling thread, which has none).
 * - `name` of a task's events: its `name` option, else its function's name (`function square`,
 *   `const inc = (x) => …`), else none.
 * - `move`: data copied to the receiving `worker` (`from`, `to` processor ids, `bytes`), for
 *   task `task`; `input` is the id of the task that produced the data, `name` its name.
 * - `spill` / `unspill`: a chunk written to, or read back from, a storage device.
 * - `clock`: a new estimate of a worker's clock offset (`processor`, `worker`, `detail`); the
 *   events that worker sends are shifted by it onto the main process clock.
 * - `memory`: a sample of the memory in use (`bytes`) by OS process `worker`.
 * - `cpu`: the CPU time (`cpuTime`, ms, all its threads) OS process `worker` used over the span
 *   `[time, time + duration]`; `cpuTime / duration` is the number of cores it kept busy.
 * - `phase`: a named stretch of the run (`name`, `time`, `duration`) that reports split their
 *   figures by (`phase()` of `@dtask/viz` records one).
 * - `thread-start` / `thread-retire` (plugin kinds, `@dtask/threads` with `min`/`max`): a thread
 *   added under load, or retired after `idleTimeoutMs` idle (`processor`, `worker`); `time` is
 *   the decision, `duration` until the thread was online, or had ended; `detail` says why (tasks
 *   waiting, threads busy; how long it idled and how many results it brought home).
 * - `stream`: a streaming task ended (`task`, `name`, `detail`: its step count, `"1000 steps"`);
 *   its steps are not logged one by one, so it is drawn as one span from `start` to its end.
 * - any other string: a plugin's own kind, drawn as an instant.
 *
 * For an event with a `duration`, `time` is when it *began*; it spans
 * `[time, time + duration]`. A recorder that learns the duration at the end logs
 * `time: now() - duration`.
 */
export interface LogEvent {
  /** What happened; open union so plugins can add their own kinds and keep autocomplete. */
  kind:
    | 'spawn'
    | 'start'
    | 'finish'
    | 'run'
    | 'fail'
    | 'cancel'
    | 'move'
    | 'spill'
    | 'unspill'
    | 'clock'
    | 'memory'
    | 'cpu'
    | 'phase'
    | (string & {});
  /** Milliseconds on the main process clock, `performance.timeOrigin + performance.now()`. */
  time: number;
  /** The task's integer id, when the event concerns a task. */
  task?: number;
  /** The task's (or the data's) display name. */
  name?: string;
  /** The processor id where it happened, e.g. `thread:1:2`. */
  processor?: string;
  /** The OS process where it happened (1 is the main process); for `move`, the receiver. */
  worker?: number;
  /** Bytes moved, spilled, read back, or produced. */
  bytes?: number;
  /** Source processor or storage device id (moves, unspills). */
  from?: string;
  /** Destination processor or storage device id (moves, spills). */
  to?: string;
  /** `spawn`: ids of the tasks this task takes as inputs or waits for (its graph edges). */
  inputs?: number[];
  /** `move`: id of the task whose result was moved. */
  input?: number;
  /** Milliseconds the event lasted, when it is a span rather than an instant. */
  duration?: number;
  /** `cpu`: milliseconds of CPU time the process used over the span. */
  cpuTime?: number;
  /** Free text: an error message, a reason for a cancel, a device name. */
  detail?: string;
}

/** Lifecycle of a task, kept as small integers on the task. */
export enum TaskState {
  /** Made, but held by a task queue; the scheduler has not seen it. */
  Queued = 0,
  /** Waiting for dependencies. */
  Pending = 1,
  /** All inputs exist; in the ready queue. */
  Ready = 2,
  /** Placed on a processor and running (or sent there). */
  Running = 3,
  /** Finished with a value. */
  Done = 4,
  /** Finished with an error (including cancellation). */
  Failed = 5,
}

/**
 * Whether a task finished with a value (neither failed nor cancelled): a task queue that
 * waits for its tasks at its end skips the ones already finished this way.
 */
export function finishedWell(task: { readonly state: TaskState }): boolean {
  return task.state === TaskState.Done;
}

/** Bits of `DTask.flags`, set by the scheduler. */
export enum TaskFlags {
  /** No scope options, a plain function, no chunk or result-scoped inputs: default placement. */
  Plain = 1,
  /** Counted in its processor slot's in-flight occupancy and load. */
  Counted = 2,
  /** Its function cannot travel (it closes over locals): it runs on the thread that made it. */
  LocalOnly = 4,
  /** Sent to a worker before its inputs existed there; it starts the moment they do. */
  SentAhead = 8,
  /** Spawned from inside another task (its parent may be waiting for it). */
  Nested = 16,
  /** An argument is a chunk of one piece per processor: replaced by the piece where it is placed. */
  PieceArgs = 32,
  /** Finished: its `args` hold its input tasks' ids in place of the tasks (weak-inputs.ts). */
  InputIds = 64,
  /** Counted among its context's unfinished tasks (`maxQueue`, `queueSize`) until it settles. */
  Unfinished = 128,
  /** A streaming task (`spawnStreaming`): a task reading it waits for its last value. */
  Streaming = 256,
  /**
   * Placed and run by the worker runtime whose task spawned it (runtime/owned-tasks.ts): the
   * scheduler never sees it; its handle's owner answers `fetch`/`wait` there.
   */
  Owned = 512,
  /**
   * Run on the calling thread at once, as a task queue asked (`runHere`): its run time goes to
   * the cost model one in `HERE_TIMED_EVERY` (every run after a slow one), and to `stats()` one
   * in `HERE_SAMPLED_EVERY`.
   */
  Here = 1024,
  /**
   * Its task queue's extra dependencies only order it and may be awaited on a worker
   * (`TaskQueue.awaitsOnWorkers`): it may be sent ahead to the worker making the one it waits for.
   */
  AwaitsOnWorkers = 2048,
  /**
   * Its result was given to a task that writes it in place (`inPlaceArgs`): its lineage makes
   * the data as it was before those writes, so a copy lost with its worker is not recomputed
   * (`resurrect` fails it with `WorkerLostError` instead of giving stale data).
   */
  WrittenInPlace = 4096,
  /**
   * No argument is a task or a chunk (seen when it was submitted): its arguments run as they
   * are, with nothing to resolve or fetch.
   */
  ValueArgs = 8192,
}

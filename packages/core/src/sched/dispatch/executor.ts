import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';

/**
 * What the scheduler tells an executor it may do with a task it was given. Executors call
 * exactly one of `complete`/`fail` per task they run (a worker runtime may also call
 * `workerLost` for all the tasks a dead worker held).
 */
export interface ExecutorSink {
  /** The task finished here with `value` (a value local to this thread). */
  complete(task: DTask<unknown>, value: unknown, durationMs?: number): void;
  /** The task finished; its value stays where it was made, reachable through `handle`. */
  completeRemote(task: DTask<unknown>, handle: RemoteResult, durationMs?: number): void;
  /** The task threw `error`. */
  fail(task: DTask<unknown>, error: unknown): void;
  /**
   * The worker running these tasks died: re-run them elsewhere (up to the kill limit). The
   * tasks given are its suspects: they share the blame for the death. `byUs` marks a kill the
   * scheduler caused, or tasks that were not running (it does not count toward the limit).
   */
  lost(tasks: Iterable<DTask<unknown>>, reason: unknown, byUs?: boolean): void;
  /** Argument values for `task` on `proc`, moved there (a promise only when something must travel). */
  resolveArgs(task: DTask<unknown>, proc: Processor): unknown[] | Promise<unknown[]>;
}

/**
 * Runs tasks on the processors of one runtime: inline on this thread, through
 * `Processor.execute`, or over a transport to a worker thread or process.
 */
export interface Executor {
  /** True when `run` executes the task synchronously on the scheduler's own thread. */
  readonly inline: boolean;
  /** True when tasks run in another thread or process, so their functions must travel. */
  readonly shipsFunctions?: boolean;
  /**
   * True when `run` accepts a task whose inputs are still being made by tasks sent to this same
   * executor (it starts it once they exist there): enables sending dependents ahead.
   */
  readonly acceptsPending?: boolean;
  /**
   * Estimated milliseconds it costs to give an idle processor of this executor work (see
   * `WorkerConnectionOptions.wakeMs`); absent: nothing beyond the task's own run.
   */
  readonly wakeMs?: number;
  /** Occupancy units a processor of this executor runs at once (Infinity: no limit). */
  readonly capacity: number;
  /** Starts `task` on `proc`; report the outcome through `sink`. */
  run(task: DTask<unknown>, proc: Processor, sink: ExecutorSink): void;
  /** Asks a running task to stop (best effort; the scheduler has already failed it). */
  cancel?(task: DTask<unknown>): void;
  /**
   * Takes back a task sent ahead that has not started, without an answer: the scheduler places
   * it again (an input it waits for will be made elsewhere), or has failed it (an input failed).
   * Unlike `cancel`, it never ends a worker. Needed with `acceptsPending`.
   */
  withdraw?(task: DTask<unknown>): void;
  /**
   * Asks the worker to hand back those of `tasks` (sent to it) that have not started yet;
   * resolves to the ones it handed back, which are no longer in flight here (the scheduler
   * places them again). Lets a processor that joins while work runs take queued work.
   */
  giveBack?(tasks: DTask<unknown>[]): Promise<DTask<unknown>[]>;
  /**
   * Sends what `run` has queued now instead of at the end of the microtask queue (an executor
   * that batches its messages). The scheduler calls it when an idle processor got work, so the
   * processor starts while the rest of the burst is still being placed.
   */
  flush?(): void;
  /**
   * Takes in the reports that have already arrived (finished tasks) now, synchronously. The
   * scheduler calls it while a `startEarly` task queue keeps the thread busy spawning.
   */
  poll?(): void;
  /** Ends the runtime; called by `Context.close()`. */
  close?(): Promise<void>;
}

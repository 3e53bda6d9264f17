import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';

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
   * The worker running these tasks died: re-run them elsewhere (up to the kill limit).
   * `byUs` marks a kill the scheduler caused (it does not count toward the limit).
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

/**
 * A result that stays where it was computed: the task's value is this marker, and dependents
 * or `fetch` obtain the data through it (Dagger keeps results on the worker that made them).
 */
export class RemoteResult {
  /**
   * Set while the result migrates to the scheduler's thread (see `take`): every read then waits
   * for that one transfer instead of asking the holder, which is about to drop the data.
   */
  moving: Promise<unknown> | undefined = undefined;

  constructor(
    /** Where the data is. */
    readonly processor: Processor,
    /** Pulls a copy of the value to the caller; the holder keeps its own. */
    private readonly pull: () => Promise<unknown>,
    /** Size in bytes, when known. */
    readonly bytes?: number,
    /** The holder's own key for the data (worker runtimes use it for peer transfers). */
    readonly key?: unknown,
    /** True once the holder is gone: the value must be recomputed from the task's lineage. */
    readonly isLost: () => boolean = neverLost,
    /**
     * Moves the value to the caller for good: the holder drops it and transfers its
     * `ArrayBuffer`s rather than copying them. Holders that cannot leave it out.
     */
    readonly take?: () => Promise<unknown>,
    /**
     * Whether the holder keeps the data under `key` in host memory although its processor has
     * a memory of its own (a device's result spilled by conversion). One function per holder.
     */
    private readonly heldInHost: (key: unknown) => boolean = neverLost,
  ) {}

  /**
   * True once its holder moved it from device to host memory: placement then weighs it as host
   * data (its dependents go to a CPU thread where they may run there).
   */
  get inHost(): boolean {
    return this.heldInHost(this.key);
  }

  /** The value, moved to the caller (a copy unless it is migrating). */
  fetch(): Promise<unknown> {
    return this.moving ?? this.pull();
  }
}

/** The default of `isLost` and `heldInHost`. */
function neverLost(): boolean {
  return false;
}

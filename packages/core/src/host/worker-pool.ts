import type { Processor } from '../processor/processor.js';
import type { PluginHost } from '../registry/plugin.js';
import type { WorkerConnection } from '../sched/executors/worker-connection/worker-connection.js';

/** One processor of a pooled worker: what the scheduler places tasks on, and its connection. */
export interface PooledMember {
  readonly proc: Processor;
  readonly connection: WorkerConnection;
}

/**
 * A worker a `WorkerPool` runs (a thread, a process with threads, a dedicated device thread):
 * the plugin's object for it, which tells the pool when it is gone (`WorkerPool.lost`).
 */
export interface PooledWorker {
  /** Its processors, each with the scheduler's connection to it. */
  processors(): readonly PooledMember[];
  /** Whether it served tasks before it ended: a death before that counts as a failed start. */
  readonly wasReady: boolean;
  /**
   * Whether its runtime started running tasks, though it may not have said it serves yet (a
   * task sent ahead may run, and end it, first): a death after that is no failed start either,
   * whatever caused it. Absent: as `wasReady`.
   */
  readonly served?: boolean;
  /** Set once it is gone. */
  readonly exited: boolean;
  /** Loads an `everywhere` module in it (one that has not started yet loads it at start). */
  loadModule(url: string): Promise<void>;
  /** Ends it on purpose; its tasks go back to the scheduler, not counted against them. */
  terminate(): Promise<void>;
}

/** What a `WorkerPool` needs from its plugin. */
export interface WorkerPoolOptions<W extends PooledWorker> {
  /** The plugin's host. */
  host: PluginHost;
  /** Starts the worker numbered `id`; it loads `modules` (the `everywhere` modules) at start. */
  start(id: number, modules: readonly string[]): W;
  /**
   * Why the worker numbered `id` is given up after `failures` starts in a row that ended before
   * it served (`reason`: the last one's): the warning, and the reason in the `SchedulingError`
   * of each task scoped to it from then on.
   */
  givenUp(worker: W, id: number, failures: number, reason: string): string;
  /** Failed starts in a row after which a number is not started again (default 3). */
  maxStartFailures?: number;
}

/**
 * The main thread's side of a plugin's workers, through their life: starts them and adds their
 * processors, replaces one that dies under the same number (before its tasks are handed back,
 * so that those scoped to it are placed again), gives a number up after repeated failed starts
 * (its tasks then fail with a `SchedulingError` naming why), loads `everywhere` modules in
 * every worker, now and in those started later, and on close fails the tasks still on its
 * workers (`CancelledError` if not started, else `WorkerLostError`) and ends them. The plugin
 * supplies the channel (starting a worker); the pool does nothing per task.
 */
export class WorkerPool<W extends PooledWorker> {
  /** The live workers by number (a worker joined from elsewhere too, see `adopt`). */
  readonly workers = new Map<number, W>();
  /** The `everywhere` modules every worker loads, by URL. */
  readonly modules: string[];
  private readonly startFailures = new Map<number, number>();
  private closing = false;

  constructor(private readonly options: WorkerPoolOptions<W>) {
    // Modules loaded with `everywhere` before the context was made: its workers load them too.
    this.modules = [...options.host.context.modules.keys()];
  }

  /** Whether the pool is closing (or its context is closed): nothing is replaced any more. */
  get isClosing(): boolean {
    return this.closing || this.options.host.context.isClosed;
  }

  /** Starts the worker numbered `id` and adds its processors to the context. */
  start(id: number): W {
    const worker = this.options.start(id, [...this.modules]);
    this.adopt(id, worker);
    return worker;
  }

  /**
   * Takes a worker the plugin started itself (e.g. one that joined from another machine) under
   * number `id` and adds its processors. Its number is not replaced when it dies.
   */
  adopt(id: number, worker: W): void {
    this.workers.set(id, worker);
    for (const m of worker.processors()) this.options.host.addProcessor(m.proc, m.connection);
  }

  /** Starts a number afresh: its failed starts so far no longer count (it served, or was freed). */
  forgetFailures(id: number): void {
    this.startFailures.delete(id);
  }

  /**
   * Called by the plugin once when worker `id` is gone, before its tasks are handed back:
   * removes its processors and, unless the pool is closing or `replace` is false, starts a
   * new one under the same number, or gives the number up after repeated failed starts.
   * Returns the replacement, if one was started.
   */
  lost(id: number, worker: W, reason: string, replace = true): W | undefined {
    if (this.workers.get(id) !== worker) return undefined;
    for (const m of worker.processors()) this.options.host.removeProcessor(m.proc);
    if (this.isClosing || !replace) {
      this.workers.delete(id);
      return undefined;
    }
    // Only a worker that never ran tasks failed to start; one that ran them (a task may have
    // ended it) gets the whole budget again, as Dask's nanny restarts a worker that served.
    const started = worker.wasReady || worker.served === true;
    const failed = started ? 0 : (this.startFailures.get(id) ?? 0) + 1;
    this.startFailures.set(id, failed);
    if (failed >= (this.options.maxStartFailures ?? 3)) {
      this.workers.delete(id);
      const why = this.options.givenUp(worker, id, failed, reason);
      for (const m of worker.processors()) this.options.host.removeProcessor(m.proc, why);
      process.emitWarning(`dtask: ${why}`);
      return undefined;
    }
    return this.start(id);
  }

  /**
   * Loads an `everywhere` module in every worker, and in those started later. When a worker
   * fails to load it (or ends while loading it: the module may be what ended it), new workers
   * do not load it, and the error rejects.
   */
  async loadModule(url: string): Promise<void> {
    this.modules.push(url);
    try {
      await Promise.all([...this.workers.values()].map((w) => w.loadModule(url)));
    } catch (error) {
      const at = this.modules.indexOf(url);
      if (at >= 0) this.modules.splice(at, 1);
      throw error;
    }
  }

  /**
   * Ends every worker: no task is placed on them any more; tasks still there fail (those that
   * never started with `CancelledError`, the others with `WorkerLostError`) instead of being
   * handed back, which would run them on the main thread after the context closed.
   */
  async close(): Promise<void> {
    this.closing = true;
    const live = [...this.workers.values()].filter((w) => !w.exited);
    const members = live.flatMap((w) => w.processors());
    for (const m of members) this.options.host.removeProcessor(m.proc);
    await Promise.all(members.map((m) => m.connection.failInFlightOnClose()));
    await Promise.all(live.map((w) => w.terminate()));
    this.workers.clear();
  }
}

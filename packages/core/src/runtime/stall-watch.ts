import type { IdTable } from '../task/id-table.js';
import type { WorkerTask } from './worker-task.js';

/**
 * Resource kinds that do not count as work a stalled task could still be waiting for: the
 * runtime's own channels (to the scheduler and to peer runtimes).
 */
const CHANNELS = new Set(['MessagePort']);

/** How often a runtime with unsettled tasks looks again (a timer a task awaited has fired). */
const RECHECK_MS = 100;

/** Whether anything besides message channels keeps this thread's event loop alive. */
export function hasPendingWork(): boolean {
  return process.getActiveResourcesInfo().some((kind) => !CHANNELS.has(kind));
}

/**
 * Tells the scheduler when every task a worker thread holds is stalled: unsettled, not running,
 * and waiting on nothing that can make progress by itself (no timer, I/O or child process, only
 * a promise, or a message). The scheduler then lets node exit as it would if those tasks ran on
 * the main thread; any message it sends to the worker counts as new work until the worker
 * says again that it is stalled.
 */
export class StallWatch {
  private reported = false;
  private scheduled = false;
  private readonly timer: ReturnType<typeof setInterval>;

  constructor(
    /**
     * Whether this worker holds unsettled tasks, each of which has started (it runs user code
     * now or awaits something) or waits only for the result of another task held here; false
     * when one waits on the runtime itself (an input from a peer, a store's back-pressure).
     */
    private readonly holdsOnlyWaitingTasks: () => boolean,
    /** Sends the verdict to the scheduler. */
    private readonly report: (stalled: boolean) => void,
    /** Whether resources other than channels are active (tests may replace it). */
    private readonly busy: () => boolean = hasPendingWork,
    /**
     * Whether this worker holds no task at all: then it cannot be stalled, and until the
     * scheduler sends it a task (`heard`) it cannot become so.
     */
    private readonly holdsNothing: () => boolean = () => false,
  ) {
    this.timer = setInterval(() => this.check(), RECHECK_MS);
    this.timer.unref();
  }

  /** The scheduler sent something: it counts the worker as busy until told otherwise. */
  heard(): void {
    this.reported = false;
    this.soon();
  }

  /**
   * Something settled or arrived here: look again once the current turn has run. Not when the
   * worker holds no task and has not said it is stalled: the look would find nothing to say (a
   * `setImmediate` saved per task on a worker that runs one task at a time).
   */
  soon(): void {
    if (this.scheduled || (!this.reported && this.holdsNothing())) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      this.check();
    }).unref();
  }

  private check(): void {
    const stalled = this.holdsOnlyWaitingTasks() && !this.busy();
    if (stalled === this.reported) return;
    // Not stalled: only worth saying if the scheduler was told it was.
    this.reported = stalled;
    this.report(stalled);
  }

  /** Stops watching. */
  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * A runtime's answer to `StallWatch`'s question, given the tasks it holds (`running`, by id):
 * true when it holds some and each has started (it runs user code now, or awaits something)
 * or waits only for a result to be made here; false when one waits on the runtime itself (an
 * input from a peer, or a store's back-pressure: those can make progress by themselves).
 */
export function holdsOnlyWaitingTasks(running: IdTable<WorkerTask>): boolean {
  if (running.size === 0) return false;
  // Asked after each burst of results: `find` stops at the first task not waiting, copying nothing.
  const active = running.find(
    (t) => t.startedAt === 0 && (t.pendingFetches > 0 || t.missing === 0),
  );
  return active === undefined;
}

import type { ToWorker } from '../protocol/protocol.js';
import { taskList, type WorkerTask } from './worker-task.js';

/**
 * Longest a runtime runs tasks in one turn of its event loop (ms) before the next ready task
 * waits for a `setImmediate`: between long tasks it then serves peers' fetches and reads the
 * scheduler's messages (regression: a thread working through a run of 60 ms matrix-product
 * blocks kept its peer waiting for the blocks it held until the whole run was done).
 */
export const YIELD_AFTER_MS = 4;

/**
 * How a worker runtime shares its thread's event loop. It runs tasks for up to `YIELD_AFTER_MS`
 * per turn; a task ready after that waits for the next turn, and so does the rest of the
 * scheduler's batch being handled, after that task: the tasks of a chain sent in one batch
 * then start as they are handled, their input made, instead of each waiting for it.
 */
export class TurnShare {
  /** When this turn began (ms). */
  private start = 0;
  /** Set once a task was deferred in this turn. */
  private over = false;
  /** Ready tasks waiting for the next turn, in order. */
  private deferred: WorkerTask[] = taskList();
  /** Messages whose handling waits for the next turn, after the deferred tasks, in order. */
  private readonly postponed: ToWorker[][] = [];

  constructor(
    /** Runs a deferred task, if it is still to run. */
    private readonly runTask: (task: WorkerTask) => void,
    /** Handles one message from the scheduler. */
    private readonly handle: (m: ToWorker) => void,
  ) {}

  /** A new turn begins (something arrived). */
  begin(): void {
    this.start = performance.now();
    this.over = false;
  }

  /**
   * A batch from the scheduler arrived. What waited for a later turn is handled first, all of it:
   * this batch may be about those tasks (give back those not started, cancel). Not when
   * `nested` (a task that runs now polls for an answer): then this batch alone, at once.
   */
  received(batch: ToWorker[], nested: boolean): void {
    this.begin();
    if (this.postponed.length > 0 && !nested) {
      for (const waiting of this.postponed.splice(0)) for (const m of waiting) this.handle(m);
    }
    this.handleBatch(batch);
  }

  /** Whether `task`, ready at `now`, waits for the next turn (it is then queued for it). */
  defers(task: WorkerTask, now: number): boolean {
    if (now - this.start <= YIELD_AFTER_MS) return false;
    if (this.deferred.push(task) === 1) setImmediate(this.next);
    this.over = true;
    return true;
  }

  /** Forgets what waits (the runtime is shutting down). */
  clear(): void {
    this.postponed.length = 0;
    this.deferred = taskList();
  }

  /** Handles `batch` in order until a task is deferred; the rest then waits for the next turn. */
  private handleBatch(batch: ToWorker[]): void {
    for (let i = 0; i < batch.length; i++) {
      this.handle(batch[i]);
      if (this.over && i + 1 < batch.length) {
        this.postponed.unshift(batch.slice(i + 1));
        return;
      }
    }
  }

  /** A new turn: the deferred tasks in order, then the messages that waited, while time is left. */
  private readonly next = (): void => {
    const queue = this.deferred;
    this.deferred = taskList();
    this.begin();
    for (let i = 0; i < queue.length; i++) {
      if (i > 0 && performance.now() - this.start > YIELD_AFTER_MS) {
        const later = this.deferred;
        this.deferred = queue.slice(i).concat(later);
        if (later.length === 0) setImmediate(this.next);
        return;
      }
      this.runTask(queue[i]);
    }
    while (this.postponed.length > 0 && !this.over) this.handleBatch(this.postponed.shift()!);
  };
}

import type { Processor } from '../processor/processor.js';
import type { SchedulerHandle } from '../sched/dynamic/scheduler-handle.js';
import type { Frame, FrameTask } from '../task/frame.js';
import type { TaskOptions } from '../task/options.js';
import type { ProxyOwner } from './proxy-owner.js';
import { WorkerSchedulerHandle } from './worker-sch-handle.js';

/**
 * A task as a worker runtime runs it: its frame (so `inTask`, `taskProcessor`, `getOptions`,
 * nested `spawn` work inside it) and what it still waits for before it can start.
 */
export class WorkerTask implements Frame, FrameTask {
  /** Local results it still waits for (sent ahead of its inputs). */
  missing = 0;
  /** Peer transfers still in flight. */
  pendingFetches = 0;
  /**
   * Inputs held here that are read when it starts, not when it arrives, as pairs (argument
   * index, key): with a spilling store, a task queued ahead must not read its inputs back
   * from disk long before it runs.
   */
  localReads: number[] | undefined = undefined;
  tlsValues: Record<string, unknown> | undefined = undefined;
  private abort: AbortController | undefined;
  /** Set when cancelled before or while running. */
  cancelled = false;
  /** When it started running (ms). */
  startedAt = 0;

  constructor(
    readonly id: number,
    readonly fn: Function,
    readonly args: unknown[],
    readonly options: TaskOptions,
    readonly propagated: TaskOptions,
    readonly processor: Processor,
    readonly handleOwner: unknown,
  ) {}

  get name(): string | undefined {
    return this.options.name;
  }

  get frameTask(): FrameTask {
    return this;
  }

  get queue(): undefined {
    return undefined;
  }

  get abortSignal(): AbortSignal {
    this.abort ??= new AbortController();
    return this.abort.signal;
  }

  /** `schHandle()` inside this task: a handle that asks the scheduler through the runtime. */
  schedulerHandle(): SchedulerHandle {
    return new WorkerSchedulerHandle(this.handleOwner as ProxyOwner, this);
  }

  /** Fires the abort signal the task can watch. */
  cancel(reason: unknown): void {
    this.cancelled = true;
    this.abort ??= new AbortController();
    if (!this.abort.signal.aborted) this.abort.abort(reason);
  }
}

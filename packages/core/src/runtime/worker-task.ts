import type { Processor } from '../processor/processor.js';
import type { Frame, FrameTask } from '../task/frame.js';
import { keepShape } from '../task/keep-shapes.js';
import type { TaskOptions } from '../task/options.js';
import type { SchedulerHandle } from '../task/scheduler-handle.js';
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
  /** Local results it waits for (sent ahead of its inputs), as pairs (argument index, key). */
  awaited: number[] | undefined = undefined;
  /** Keys of its inputs the store holds in memory for it while it runs (`LocalStore.hold`). */
  held: number[] | undefined = undefined;
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

  static {
    // One that never goes away keeps the shapes of all of them general (keep-shapes.ts).
    const none = {};
    const task = new WorkerTask(-1, () => {}, [], none, none, {} as Processor, none);
    keepShape(task, (t) => {
      for (const [small, number, flag, list] of [
        [1, 0.5, true, []],
        [2, 1.5, false, [1]],
      ] as const) {
        t.missing = t.pendingFetches = small;
        t.startedAt = number; // milliseconds
        t.cancelled = flag;
        t.localReads = t.awaited = t.held = [...list];
        t.tlsValues = {};
        t.abort = new AbortController();
      }
    });
  }
}

/**
 * An empty list of tasks whose elements are objects from the start. A list made by `[]` is
 * typed for small integers until its first task arrives, and that change of kind makes V8
 * drop the optimised code that pushed the task: in the middle of a chain sent ahead, where
 * thousands of frames of that code are on the stack (each task starts inside the one that
 * made its input), every one of them is then deoptimised as it returns.
 */
export function taskList(): WorkerTask[] {
  const list: WorkerTask[] = [undefined as unknown as WorkerTask];
  list.pop();
  return list;
}

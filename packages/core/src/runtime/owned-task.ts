import type { Processor } from '../processor/processor.js';
import type { DTask } from '../task/dtask.js';
import type { Frame, FrameTask } from '../task/frame.js';
import type { TaskOptions } from '../task/options.js';
import type { SchedulerHandle } from '../task/scheduler-handle.js';
import type { ProxyOwner } from './proxy-owner.js';
import { WorkerSchedulerHandle } from './worker-sch-handle.js';

/**
 * A nested task that the worker runtime whose task spawned it placed and runs itself
 * (`OwnedTasks`), as the frame its code runs in: `spawn` inside it places or forwards in turn,
 * `getTls`/`setTls`, `taskProcessor` and its abort signal are its handle's. The scheduler does
 * not know its id, so `schHandle()` there acts for `agent`, the nearest task the scheduler
 * placed (whose loss re-runs this one too).
 */
export class OwnedTask implements Frame, FrameTask {
  /** Inputs placed here that have not finished yet. */
  missing = 0;

  constructor(
    /** The handle `spawn` returned, which holds its state, value and listeners. */
    readonly handle: DTask<unknown>,
    /** The id of the nearest enclosing task that the scheduler placed. */
    readonly agent: number,
    /** The runtime's scheduler proxy, which owns the handle. */
    readonly handleOwner: ProxyOwner,
    readonly processor: Processor,
  ) {}

  get id(): number {
    return this.handle.id;
  }

  get name(): string | undefined {
    return this.handle.options.name;
  }

  get frameTask(): FrameTask {
    return this;
  }

  get propagated(): TaskOptions {
    return this.handle.inherited;
  }

  get queue(): undefined {
    return undefined;
  }

  get abortSignal(): AbortSignal {
    return this.handle.abortSignal;
  }

  get tlsValues(): Record<string, unknown> | undefined {
    return this.handle.tlsValues;
  }

  set tlsValues(values: Record<string, unknown> | undefined) {
    this.handle.tlsValues = values;
  }

  /** `schHandle()` inside this task: it asks the scheduler on behalf of `agent`. */
  schedulerHandle(): SchedulerHandle {
    return new WorkerSchedulerHandle(this.handleOwner, this, this.agent);
  }
}

import type { FrameTask } from './frame-task.js';
import type { TaskOptions } from './options.js';
import type { TaskQueue } from './task-queue-contract.js';

/**
 * What the current async context knows: the running task (if any), the options that
 * propagate to tasks spawned here (`withOptions`), and the task queue that receives them.
 * A running `DTask` is itself a frame, so entering a task allocates nothing.
 */
export interface Frame {
  /** The task running in this context, if any. */
  readonly frameTask: FrameTask | undefined;
  /** Options that tasks spawned here inherit. */
  readonly propagated: TaskOptions;
  /** Where tasks spawned here go first (datadeps, spawnBulk); undefined = the scheduler. */
  readonly queue: TaskQueue | undefined;
}

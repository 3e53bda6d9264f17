import type { DTask } from '../task/dtask.js';
import type { FrameTask } from '../task/frame-task.js';

/**
 * What a runtime's proxy of the scheduler asks of the placement of tasks spawned there that
 * may run there (`OwnedTasks`): take one, answer `fetch`/`wait`/`cancel` for those it took,
 * fail one, and close.
 */
export interface OwnedPlacement {
  /** Places `task` (spawned inside `parent`) here; false leaves it to the scheduler. */
  take(task: DTask<unknown>, parent: FrameTask | undefined): boolean;
  /** The value of a task placed here. */
  fetchValue(task: DTask<unknown>): Promise<unknown>;
  /** Resolves once a task placed here has ended. */
  wait(task: DTask<unknown>): Promise<void>;
  /** Cancels a task placed here; false when it had already ended. */
  cancel(task: DTask<unknown>, reason?: unknown): boolean;
  /** Fails `task`, placed here, with `error` (its own, or its failed input `upstream`'s). */
  fail(task: DTask<unknown>, error: unknown, upstream: DTask | undefined): void;
  /** The runtime is ending: nothing more is placed or run here. */
  close(): void;
}

import { TaskFunctionError } from '../../errors/errors.js';
import type { AbstractScope } from '../../scope/index.js';
import type { DTask } from '../../task/dtask.js';
import { TaskFlags } from '../../task/task-state.js';
import { allowedSlots, taskScope } from './allowed-processors.js';
import { hereOf } from './data-home.js';
import type { ProcSlot } from './proc-slot.js';

/**
 * Which processors a task may run on. The answer for default-placed tasks is the same for all
 * of them while the context's processors are all threads, so it is kept until they change.
 */
export class CandidateSlots {
  /**
   * Processors a default-placed task may use, while they do not depend on the task (every
   * processor is a thread); null when they do; undefined until computed.
   */
  private defaults: ProcSlot[] | null | undefined;
  /**
   * Processors a task whose scope is exactly one given scope object may use, by that object,
   * while every processor is a thread (many tasks share one options object: a `scope({ workers
   * })` over 32 worker processes was judged against every processor for every task).
   */
  private byScope = new WeakMap<AbstractScope, ProcSlot[]>();
  /** Whether every processor is a thread (the answer then does not depend on the task). */
  private threadsOnly: boolean | undefined;

  /** Forgets the kept answers; call when processors or their enablement change. */
  invalidate(): void {
    this.defaults = undefined;
    this.byScope = new WeakMap();
    this.threadsOnly = undefined;
  }

  /** The processors among `slots` that `task` may run on (throws `SchedulingError` when none). */
  of(task: DTask<unknown>, slots: ProcSlot[]): ProcSlot[] {
    if ((task.flags & TaskFlags.LocalOnly) !== 0) {
      const local = slots.find((s) => s.executor.inline);
      if (local) return [local];
      throw new TaskFunctionError(
        `Task #${task.id} must run on the thread that defined its function, which is no longer in this context`,
      );
    }
    if ((task.flags & TaskFlags.Plain) !== 0) {
      if (this.defaults === undefined) {
        this.defaults = slots.every((s) => s.proc.kind === 'thread')
          ? allowedSlots(task, taskScope(task), slots)
          : null;
      }
      if (this.defaults !== null) return this.defaults;
    }
    const here = task.options.inPlaceArgs === undefined ? undefined : hereOf(slots);
    const scope = taskScope(task, here);
    // Kept only for the task's own scope object (a narrowed scope is made anew per task).
    if (scope !== (task.options.computeScope ?? task.options.scope)) {
      return allowedSlots(task, scope, slots);
    }
    this.threadsOnly ??= slots.every((s) => s.proc.kind === 'thread');
    if (!this.threadsOnly) return allowedSlots(task, scope, slots);
    let allowed = this.byScope.get(scope);
    if (allowed === undefined) {
      allowed = allowedSlots(task, scope, slots);
      this.byScope.set(scope, allowed);
    }
    return allowed;
  }
}

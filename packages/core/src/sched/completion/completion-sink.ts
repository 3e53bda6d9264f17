import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import type { RemoteResult } from '../../task/remote-result.js';
import type { ExecutorSink } from '../dispatch/executor.js';
import { resolveArgs } from '../dispatch/resolve-args.js';
import { tasksLost } from '../faults/tasks-lost.js';
import type { SchedulerState } from '../scheduler-state.js';
import { completeRemoteTask, completeTask } from './complete-task.js';
import { failTask } from './fail-task.js';

/**
 * Where executors report a task's outcome (`ExecutorSink`, handed to every `Executor.run`):
 * each report goes straight to the phase that owns it, so a task's run does not pass back
 * through the `Scheduler` class.
 */
export class CompletionSink implements ExecutorSink {
  constructor(private readonly s: SchedulerState) {}

  /** See `ExecutorSink.complete` and `completeTask`. */
  complete(task: DTask<unknown>, value: unknown, durationMs?: number): void {
    completeTask(this.s, task, value, durationMs);
  }

  /** See `ExecutorSink.completeRemote` and `completeRemoteTask`. */
  completeRemote(task: DTask<unknown>, handle: RemoteResult, durationMs?: number): void {
    completeRemoteTask(this.s, task, handle, durationMs);
  }

  /** See `ExecutorSink.fail` and `failTask`. */
  fail(task: DTask<unknown>, error: unknown): void {
    failTask(this.s, task, error);
  }

  /** See `ExecutorSink.lost` and `tasksLost`. */
  lost(tasks: Iterable<DTask<unknown>>, reason: unknown, byUs = false): void {
    tasksLost(this.s, tasks, reason, byUs);
  }

  /** See `ExecutorSink.resolveArgs`. */
  resolveArgs(task: DTask<unknown>, proc: Processor): unknown[] | Promise<unknown[]> {
    return resolveArgs(this.s, task, proc);
  }
}

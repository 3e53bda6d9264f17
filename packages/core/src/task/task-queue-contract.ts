import type { DTask } from './dtask.js';

/**
 * Receives tasks spawned inside `withTaskQueue` before the scheduler does (Dagger's task
 * queues). A queue must eventually pass every task to `submit`, possibly with extra tasks to
 * wait for; datadeps uses this to add the dependencies it infers from argument annotations.
 */
export interface TaskQueue {
  /** Takes `task`, which is not yet known to the scheduler. */
  enqueue(task: DTask<unknown>, submit: SubmitTask): void;
  /**
   * When true, a task this queue submits that is ready at once goes to an idle worker right
   * away, not once the code spawning it yields: a region that spends milliseconds spawning
   * (datadeps analyses every argument) has its first tasks running meanwhile. It is never run
   * on the calling thread then (that waits for the usual pass), and it is not sent ahead
   * together with the tasks spawned after it, so leave it off for chains of value dependencies.
   */
  readonly startEarly?: boolean;
  /**
   * When true, the extra dependencies this queue gives only order its tasks (they share memory
   * that every thread of this process sees, e.g. datadeps' `SharedArrayBuffer` views): a task
   * whose last waits are on tasks just sent to one worker may go to that worker ahead of them
   * and start there the moment they have finished, without a round trip through the scheduler
   * (local successor execution, as for a task whose inputs are made there). Leave it off when a
   * task depends on what the scheduler's thread does with an earlier task's completion.
   */
  readonly awaitsOnWorkers?: boolean;
}

/**
 * Hands a task to its scheduler, with tasks it must wait for without receiving their values.
 * `here`: the queue has checked that the calling thread may run the task (its data is all in
 * this thread's memory, its scope is the default); the scheduler then runs it on the calling
 * thread at once, before `submit` returns, if it has nothing to wait for and its function's
 * learned run time is tiny (under about 20 µs: less than sending it to a worker costs), and
 * places it as usual otherwise.
 */
export type SubmitTask = (
  task: DTask<unknown>,
  extraDeps?: Iterable<unknown>,
  here?: boolean,
) => void;

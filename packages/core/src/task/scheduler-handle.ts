/**
 * Dagger's scheduler handle: lets a running task add tasks to the graph, query it, run code
 * in the scheduler, or halt it. Get one with `schHandle()` inside a task. A task on the
 * scheduler's thread gets a handle that acts on the scheduler directly; a task on a worker
 * thread gets one that asks the scheduler over the worker's channel. The contract lives with
 * the task types, so the worker side implements it without importing the scheduler side.
 */
export abstract class SchedulerHandle {
  /** The id of the task holding this handle. */
  abstract readonly taskId: number;

  /** Dagger's `fetch(h, id)`: the value of task `id`; not the caller itself nor its dependents. */
  abstract fetch(id: number): Promise<unknown>;

  /** Dagger's `wait(h, id)`: resolves when task `id` has finished. */
  abstract wait(id: number): Promise<void>;

  /** @internal See `addThunk`. */
  abstract addThunk(f: unknown, args: unknown[]): number;

  /**
   * @internal See `exec`. `f` takes the scheduler's state, a type of the scheduler's side, so
   * here its parameter is `unknown`; the scheduler's own handle names it.
   */
  abstract exec(f: (scheduler: unknown) => unknown): Promise<unknown>;

  /** @internal See `halt`. */
  abstract halt(): void;

  /** @internal See `getDagIds`. */
  abstract dagIds(): Map<number, Set<number>>;
}

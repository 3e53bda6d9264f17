import { taskList } from './completion-order.js';
import type { DTask } from './dtask.js';
import { isHeldElsewhere } from './remote-result.js';
import { TaskState } from './task-state.js';

/**
 * The values of `tasks`, in the order given, once all have finished (Dagger's `fetch.(ts)`,
 * Dask's `client.gather(futures)`, Ray's `ray.get(refs)`). Rejects with the first failure's
 * `DTaskFailedError` as soon as one fails, as `Promise.all` would.
 *
 * The same result as `Promise.all(tasks)`, for less: `Promise.all` makes a promise, its
 * resolving functions and a reaction for each task it is given (about 430 bytes each, kept
 * until the task finishes), where this keeps one listener for the whole list. With hundreds of
 * thousands of small tasks in flight, the heap copies those bytes twice while they run.
 *
 * Throws `ArgumentError` at the call for anything but an array (or iterable) of `DTask`s.
 */
export function fetchAll<const L extends readonly DTask<unknown>[]>(
  tasks: L,
): Promise<{ -readonly [K in keyof L]: Awaited<L[K]> }>;
export function fetchAll<T>(tasks: Iterable<DTask<T>>): Promise<T[]>;
export function fetchAll<T>(tasks: Iterable<DTask<T>>): Promise<T[]> {
  const list = taskList('fetchAll(tasks)', tasks);
  // A worker's handles ask their owner for everything: no listener to share there.
  if (list.some((task) => task.owner.remote)) return Promise.all(list.map((t) => t.fetch()));
  return new Promise<T[]>((resolve, reject) => {
    const gathering = new Gathering(list, resolve, reject);
    for (const task of list) {
      try {
        task.owner.guardWait(task);
      } catch (error) {
        gathering.fail(error);
        return;
      }
      task.onSettled(gathering);
    }
  });
}

/** The listener of one `fetchAll`: counts its tasks down, then reads their values in order. */
class Gathering<T> {
  private remaining: number;
  private settled = false;

  constructor(
    private readonly tasks: DTask<T>[],
    private readonly resolve: (values: T[]) => void,
    private readonly reject: (reason: unknown) => void,
  ) {
    this.remaining = tasks.length;
    if (tasks.length === 0) this.collect();
  }

  /** Called by each task as it finishes (at once for one that has). */
  onTaskSettled(task: DTask<unknown>): void {
    if (this.settled) return;
    if (task.state === TaskState.Failed) this.fail(task.value);
    else if (--this.remaining === 0) this.collect();
  }

  /** Rejects with `reason`, once; later tasks' outcomes are ignored. */
  fail(reason: unknown): void {
    if (this.settled) return;
    this.settled = true;
    this.reject(reason);
  }

  /** Resolves with every task's value; a value held on a worker or in a chunk is fetched. */
  private collect(): void {
    this.settled = true;
    const { tasks } = this;
    const values = new Array<T>(tasks.length);
    let fetching: Promise<unknown>[] | undefined;
    try {
      for (let i = 0; i < tasks.length; i++) {
        const task = tasks[i]!;
        const value = task.value;
        if (isHeldElsewhere(value)) {
          fetching ??= [];
          fetching.push(task.owner.fetchValue(task).then((v) => (values[i] = v as T)));
        } else values[i] = value as T;
      }
    } catch (error) {
      this.reject(error);
      return;
    }
    if (fetching === undefined) this.resolve(values);
    else Promise.all(fetching).then(() => this.resolve(values), this.reject);
  }
}

import { ArgumentError } from '../errors/errors.js';
import { type DTask, isDTask } from './dtask.js';

/**
 * The tasks of one call of `asCompleted` or `wait`, in the order they finish: each task is
 * watched from the call on (with `wait()`, so a failed task counts as finished and nothing
 * rejects unhandled), and the call's reader takes them as they come.
 */
export class CompletionOrder<T> {
  /** The tasks given, in the caller's order. */
  readonly tasks: readonly DTask<T>[];
  /** The finished ones, in finishing order. */
  readonly finished: DTask<T>[] = [];
  private wake: (() => void) | undefined = undefined;

  constructor(tasks: readonly DTask<T>[]) {
    this.tasks = tasks;
    for (const task of tasks) {
      task.wait().then(() => {
        this.finished.push(task);
        const wake = this.wake;
        this.wake = undefined;
        wake?.();
      });
    }
  }

  /** Resolves once more than `count` tasks have finished (at once if they have). */
  next(count: number): Promise<void> {
    if (this.finished.length > count) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.wake = resolve;
    });
  }

  /** The tasks not finished yet, in the caller's order. */
  pending(): DTask<T>[] {
    const done = new Set<DTask<T>>(this.finished);
    return this.tasks.filter((task) => !done.has(task));
  }
}

/** `tasks` as an array of `DTask`s; an `ArgumentError` naming `where` for anything else. */
export function taskList<T>(where: string, tasks: Iterable<DTask<T>>): DTask<T>[] {
  if (
    tasks === null ||
    typeof (tasks as { [Symbol.iterator]?: unknown })?.[Symbol.iterator] !== 'function'
  ) {
    throw new ArgumentError(`${where}: tasks must be an array (or iterable) of DTasks`);
  }
  const list = [...tasks];
  list.forEach((task, i) => {
    if (!isDTask(task)) {
      throw new ArgumentError(
        `${where}: tasks[${i}] is not a DTask; pass the handles spawn returned (wrap a promise with spawn(() => promise) to mix them in)`,
      );
    }
  });
  return list;
}

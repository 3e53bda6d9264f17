import { CompletionOrder, taskList } from './completion-order.js';
import type { DTask } from './dtask.js';

/** One finished task from `asCompleted`: its handle, and its place in the list given. */
export interface Completed<T> {
  /** The task (await it for its value or its `DTaskFailedError`). */
  task: DTask<T>;
  /** Its index in the tasks given to `asCompleted`. */
  index: number;
}

/**
 * The given tasks as they finish (Dask's `as_completed`, Ray's `ray.wait` loop): an async
 * iterable of `{ task, index }` in completion order, failed tasks included. Not the bare
 * handles: a `DTask` is thenable, so `for await` would unwrap each one into its value (and
 * TypeScript types the loop variable so). The tasks are watched from this call on, so an order
 * is kept even before the first read; tasks finished already come first, in the order given.
 *
 * ```ts
 * for await (const { task, index } of asCompleted(tasks)) console.log(index, await task);
 * ```
 *
 * Throws `ArgumentError` at the call for anything but an iterable of `DTask`s.
 */
export function asCompleted<T>(tasks: Iterable<DTask<T>>): AsyncIterableIterator<Completed<T>> {
  const list = taskList('asCompleted(tasks)', tasks);
  const order = new CompletionOrder(list);
  const indexOf = new Map(list.map((task, index) => [task, index]));
  let read = 0;
  const iterator: AsyncIterableIterator<Completed<T>> = {
    async next() {
      if (read === order.tasks.length) return { done: true, value: undefined };
      await order.next(read);
      const task = order.finished[read++] as DTask<T>;
      return { done: false, value: { task, index: indexOf.get(task) as number } };
    },
    async return() {
      read = order.tasks.length;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

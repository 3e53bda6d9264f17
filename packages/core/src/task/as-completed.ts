import { CompletionOrder, taskList } from './completion-order.js';
import type { DTask } from './dtask.js';

/**
 * The given tasks as they finish (Dask's `as_completed`, Ray's `ray.wait` loop): an async
 * iterable of the same `DTask` handles in completion order, failed ones included (await a
 * handle for its value or its `DTaskFailedError`). The tasks are watched from this call on, so
 * an order is kept even before the first read; tasks finished already come first, in the order
 * given.
 *
 * ```ts
 * for await (const t of asCompleted(tasks)) console.log(t.id, await t);
 * ```
 *
 * Throws `ArgumentError` at the call for anything but an iterable of `DTask`s.
 */
export function asCompleted<T>(tasks: Iterable<DTask<T>>): AsyncIterableIterator<DTask<T>> {
  const order = new CompletionOrder(taskList('asCompleted(tasks)', tasks));
  let read = 0;
  // Not an async generator: `yield` would await each DTask (it is thenable) and give its value.
  const iterator: AsyncIterableIterator<DTask<T>> = {
    async next() {
      if (read === order.tasks.length) return { done: true, value: undefined };
      await order.next(read);
      return { done: false, value: order.finished[read++] as DTask<T> };
    },
    async return() {
      read = order.tasks.length;
      return { done: true, value: undefined };
    },
    [Symbol.asyncIterator]: () => iterator,
  };
  return iterator;
}

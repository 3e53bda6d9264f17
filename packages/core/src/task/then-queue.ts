import { RemoteResult } from '../sched/dispatch/executor.js';
import type { DTask } from './dtask.js';
import { TaskState } from './task-state.js';

type Callback = ((value: unknown) => unknown) | null | undefined;

/**
 * `then` callbacks of tasks that have finished, run together in one microtask, as a promise's
 * reactions would be. Awaiting a task thereby costs one promise instead of a chain of two plus
 * their reaction records, which matters when a program awaits hundreds of thousands of them.
 * Five slots per entry: task, onFulfilled, onRejected, resolve, reject.
 */
const queue: unknown[] = [];
let scheduled = false;

/** Settles `resolve`/`reject` (a promise returned by `task.then`) through the callbacks, soon. */
export function queueThen(
  task: DTask<unknown>,
  onFulfilled: Callback,
  onRejected: Callback,
  resolve: (value: unknown) => void,
  reject: (reason: unknown) => void,
): void {
  queue.push(task, onFulfilled, onRejected, resolve, reject);
  if (!scheduled) {
    scheduled = true;
    queueMicrotask(drain);
  }
}

function drain(): void {
  scheduled = false;
  // Entries added while draining (a callback finishing a task inline) are run in this pass too.
  for (let i = 0; i < queue.length; i += 5) {
    const task = queue[i] as DTask<unknown>;
    const onFulfilled = queue[i + 1] as Callback;
    const onRejected = queue[i + 2] as Callback;
    const resolve = queue[i + 3] as (value: unknown) => void;
    const reject = queue[i + 4] as (reason: unknown) => void;
    if (task.state === TaskState.Failed) settle(onRejected, task.value, resolve, reject, false);
    else if (task.value instanceof RemoteResult)
      task.owner.fetchValue(task).then(onFulfilled, onRejected).then(resolve, reject);
    else settle(onFulfilled, task.value, resolve, reject, true);
  }
  queue.length = 0;
}

function settle(
  callback: Callback,
  value: unknown,
  resolve: (value: unknown) => void,
  reject: (reason: unknown) => void,
  fulfilled: boolean,
): void {
  if (typeof callback !== 'function') {
    if (fulfilled) resolve(value);
    else reject(value);
    return;
  }
  try {
    resolve(callback(value));
  } catch (error) {
    reject(error);
  }
}

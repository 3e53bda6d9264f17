import { keepShape } from './keep-shapes.js';
import { isHeldElsewhere } from './remote-result.js';
import { TaskState } from './task-state.js';

/** What a pending `then` reads of its task once that has settled (a `DTask`). */
export interface SettledTask {
  readonly state: TaskState;
  readonly value: unknown;
  readonly owner: { fetchValue(task: SettledTask): Promise<unknown> };
}

type Callback = ((value: unknown) => unknown) | null | undefined;

/** Marks in `PendingThen.head` once the callbacks are no longer needed. */
const FULFILLED: Callback = () => undefined;
const REJECTED: Callback = () => undefined;
/** Marks a `PendingThen` whose promise was made (`tail` holds it, with the callbacks). */
const MADE: Callback = () => undefined;

/**
 * What `DTask.then` returns while its task is pending: a promise that is only made if somebody
 * uses it. `await t` and `Promise.all([t, ...])` call `t.then(resolve, reject)` and drop what it
 * returns, so for them a `then` costs this one object instead of a promise, its executor, its
 * resolving functions and a listener closure, which matters when a program awaits hundreds of
 * thousands of tasks. Chaining (`t.then(f).then(g)`, `.catch`, `.finally`) makes the promise,
 * which then settles exactly as the promise from a native `then` would.
 *
 * The task runs it as a listener once it finishes; the callbacks of all tasks finished in one
 * turn then run together in one microtask, as a promise's reactions would.
 */
export class PendingThen<T = unknown> implements Promise<T> {
  /**
   * The state and what it needs, in two fields (each more would cost 8 bytes on each of the
   * hundreds of thousands a burst may hold): while pending, `head` is `onFulfilled` and `tail`
   * `onRejected`; once settled before any promise was made, `head` is `FULFILLED` or
   * `REJECTED` and `tail` the value or reason; once a promise was made, `head` is `MADE` and
   * `tail` the promise, its settling functions and the callbacks.
   */
  private head: Callback;
  private tail: unknown;

  constructor(onFulfilled: Callback, onRejected: Callback) {
    this.head = onFulfilled;
    this.tail = onRejected;
  }

  /** `Promise`'s tag, so that the object describes itself as the promise it stands for. */
  get [Symbol.toStringTag](): string {
    return 'Promise';
  }

  // biome-ignore lint/suspicious/noThenProperty: it stands for a promise.
  then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    return this.materialize().then(onFulfilled, onRejected);
  }

  catch<R = never>(onRejected?: ((reason: unknown) => R | PromiseLike<R>) | null): Promise<T | R> {
    return this.materialize().catch(onRejected);
  }

  finally(onFinally?: (() => void) | null): Promise<T> {
    return this.materialize().finally(onFinally);
  }

  /**
   * @internal Called by `task` once it has finished: queues the callbacks. The task is handed
   * in, not kept: one field less on each of the hundreds of thousands a burst may hold.
   */
  onTaskSettled(task: SettledTask): void {
    queue.push(this, task);
    if (!scheduled) {
      scheduled = true;
      queueMicrotask(drain);
    }
  }

  /** @internal Runs the callback that `task`'s outcome calls for. */
  run(task: SettledTask): void {
    if (task.state === TaskState.Failed) this.settle(false, task.value);
    else if (isHeldElsewhere(task.value)) {
      task.owner.fetchValue(task).then(
        (value) => this.settle(true, value),
        (error) => this.settle(false, error),
      );
    } else this.settle(true, task.value);
  }

  /** The callback for the outcome (`fulfilled` or not), wherever the state keeps it. */
  private callback(fulfilled: boolean): Callback {
    if (this.head === MADE) {
      const made = this.tail as Made<T>;
      return fulfilled ? made.onFulfilled : made.onRejected;
    }
    return fulfilled ? this.head : (this.tail as Callback);
  }

  private settle(fulfilled: boolean, value: unknown): void {
    const callback = this.callback(fulfilled);
    if (typeof callback !== 'function') {
      if (fulfilled) this.fulfil(value);
      else this.fail(value);
      return;
    }
    let next: unknown;
    try {
      next = callback(value);
    } catch (error) {
      this.fail(error);
      return;
    }
    this.fulfil(next);
  }

  private fulfil(value: unknown): void {
    if (this.head === MADE) (this.tail as Made<T>).resolve(value);
    else {
      this.head = FULFILLED;
      this.tail = value;
    }
  }

  private fail(reason: unknown): void {
    if (this.head === MADE) (this.tail as Made<T>).reject(reason);
    else {
      // Nobody holds the promise yet: make it now, rejected, so that an unhandled failure is
      // reported as it would be for a native promise.
      this.head = REJECTED;
      this.tail = reason;
      this.materialize();
    }
  }

  private materialize(): Promise<T> {
    const state = this.head;
    if (state === MADE) return (this.tail as Made<T>).promise;
    const made: Made<T> = {
      promise: undefined as unknown as Promise<T>,
      resolve: noop,
      reject: noop,
      onFulfilled: undefined,
      onRejected: undefined,
    };
    if (state === FULFILLED) made.promise = Promise.resolve(this.tail as T);
    else if (state === REJECTED) made.promise = Promise.reject(this.tail);
    else {
      made.onFulfilled = state;
      made.onRejected = this.tail as Callback;
      made.promise = new Promise<T>((resolve, reject) => {
        made.resolve = resolve as (value: unknown) => void;
        made.reject = reject;
      });
    }
    this.head = MADE;
    this.tail = made;
    return made.promise;
  }

  static {
    // One that never goes away keeps the shapes of all of them general (keep-shapes.ts).
    keepShape(new PendingThen(noop, noop), (p) => {
      for (const [mark, tail] of [
        [FULFILLED, 1],
        [REJECTED, {}],
      ] as const) {
        p.head = mark;
        p.tail = tail;
      }
    });
  }
}

/** The promise a `PendingThen` made, with its settling functions and the callbacks. */
interface Made<T> {
  promise: Promise<T>;
  resolve: (value: unknown) => void;
  reject: (reason: unknown) => void;
  onFulfilled: Callback;
  onRejected: Callback;
}

function noop(): void {}

/** Settled `then`s and their tasks, in pairs. */
const queue: (PendingThen | SettledTask)[] = [];
let scheduled = false;

function drain(): void {
  scheduled = false;
  // Entries added while draining (a callback finishing a task inline) are run in this pass too.
  for (let i = 0; i < queue.length; i += 2) {
    (queue[i] as PendingThen).run(queue[i + 1] as SettledTask);
  }
  queue.length = 0;
}

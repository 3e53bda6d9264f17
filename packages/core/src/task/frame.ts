import { AsyncLocalStorage } from 'node:async_hooks';
import type { Processor } from '../processor/processor.js';
import type { TaskOptions } from './options.js';
import type { TaskQueue } from './task-queue.js';

/**
 * What the current async context knows: the running task (if any), the options that
 * propagate to tasks spawned here (`withOptions`), and the task queue that receives them.
 * A running `DTask` is itself a frame, so entering a task allocates nothing.
 */
export interface Frame {
  /** The task running in this context, if any. */
  readonly frameTask: FrameTask | undefined;
  /** Options that tasks spawned here inherit. */
  readonly propagated: TaskOptions;
  /** Where tasks spawned here go first (datadeps, spawnBulk); undefined = the scheduler. */
  readonly queue: TaskQueue | undefined;
}

/** The part of a running task that task-local functions expose. */
export interface FrameTask {
  readonly id: number;
  readonly name: string | undefined;
  /** Where it runs. */
  readonly processor: Processor | undefined;
  /** Aborted when the task is cancelled; created on first use. */
  readonly abortSignal: AbortSignal;
  /** User task-local values (`getTls`/`setTls`). */
  tlsValues: Record<string, unknown> | undefined;
  /** The scheduler handle for dynamic control (`schHandle`). */
  readonly handleOwner: unknown;
}

const KEY = Symbol.for('dtask.frames');

/** The one AsyncLocalStorage of dtask frames (shared by ESM/CJS copies through globalThis). */
export const frames: AsyncLocalStorage<Frame> = ((globalThis as any)[KEY] ??=
  new AsyncLocalStorage<Frame>());

const STORE_KEY = Symbol.for('dtask.framesHeld');

/**
 * Runs of `frames` that may still continue (an async function or a promise not yet settled),
 * shared by every copy of the package in this thread; `sticky` once `holdFrames` was called.
 */
const store: { held: number; sticky: boolean; checking: boolean } = ((
  globalThis as Record<symbol, unknown>
)[STORE_KEY] ??= { held: 0, sticky: false, checking: false }) as {
  held: number;
  sticky: boolean;
  checking: boolean;
};

/**
 * Runs `fn(...args)` with `frame` as the async context. In Node 20 an `AsyncLocalStorage`, once
 * used, turns on promise hooks for the whole process, which makes every promise two to three
 * times slower (a `for await` over an async generator: 148 against 395 ms per 1,000,000
 * values), the user's code included. So `frames` stays on only while a run may still continue:
 * once every run has returned, and every promise one returned has settled, it is turned off
 * (at the next turn of the event loop, so that a task following another does not turn it off
 * and on again: about 5 µs) until the next run.
 */
function runInStore<R, A extends unknown[]>(
  frame: Frame | undefined,
  fn: (...args: A) => R,
  ...args: A
): R {
  store.held++;
  let result: R;
  try {
    result = frames.run(frame as Frame, fn, ...args);
  } catch (error) {
    release();
    throw error;
  }
  if (result instanceof Promise) {
    // Returned in place of the caller's promise, so that one nobody handles still reports
    // its rejection as unhandled.
    return result.finally(release) as R;
  }
  release();
  return result;
}

/**
 * `runInStore` for a task function, whose promise the scheduler always handles: the promise
 * itself is returned (no extra promise and turns for every async task).
 */
function runTaskInStore(frame: Frame, fn: Function, args: unknown[]): unknown {
  store.held++;
  let result: unknown;
  try {
    result = frames.run(frame, Reflect.apply, fn, undefined, args);
  } catch (error) {
    release();
    throw error;
  }
  if (result instanceof Promise) result.then(release, release);
  else release();
  return result;
}

/**
 * Keeps `frames` on from now on: `setTls` sets the context for the rest of an execution that
 * no run bounds (`AsyncLocalStorage.enterWith`).
 */
export function holdFrames(): void {
  store.sticky = true;
}

function release(): void {
  if (--store.held > 0 || store.sticky || store.checking) return;
  store.checking = true;
  setImmediate(turnOffIfIdle).unref();
}

function turnOffIfIdle(): void {
  store.checking = false;
  if (store.held === 0 && !store.sticky) frames.disable();
}

/** Whether `frames` is on (a run may still continue): for tests. */
export function framesInUse(): boolean {
  return (frames as unknown as { enabled?: boolean }).enabled ?? store.held > 0;
}

/** A frame made by `withOptions` or a task queue. */
export class ScopedFrame implements Frame {
  constructor(
    readonly frameTask: FrameTask | undefined,
    readonly propagated: TaskOptions,
    readonly queue: TaskQueue | undefined,
  ) {}
}

const SYNC_KEY = Symbol.for('dtask.syncFrame');

/** The frame of the synchronous task running now, which wins over the async context. */
const sync: { frame: Frame | undefined } = ((globalThis as Record<symbol, unknown>)[SYNC_KEY] ??= {
  frame: undefined,
}) as { frame: Frame | undefined };

const AsyncFunction = (async () => {}).constructor;

/** The frame in effect here: the running synchronous task's, else the async context's. */
export function currentFrame(): Frame | undefined {
  return sync.frame ?? frames.getStore();
}

/**
 * The id of the task whose code runs now on this thread (its synchronous call, or an async
 * task function after its awaits), 0 outside any: what a worker process's `exit` listener
 * names when a task calls `process.exit()`.
 */
export function runningTaskId(): number {
  return currentFrame()?.frameTask?.id ?? 0;
}

/**
 * Runs `fn(...args)` as task `frame`. A plain function runs with the frame held in a variable
 * for its synchronous run, which costs nothing and, unlike AsyncLocalStorage in Node 20, does
 * not slow down every promise in the process. An async function gets the frame through
 * AsyncLocalStorage so it survives its awaits. (A plain function that returns a promise keeps
 * the frame only for its synchronous part: write such tasks as async functions.)
 */
export function callInFrame(frame: Frame, fn: Function, args: unknown[]): unknown {
  const previous = sync.frame;
  if (fn instanceof AsyncFunction) {
    sync.frame = undefined;
    try {
      return runTaskInStore(frame, fn, args);
    } finally {
      sync.frame = previous;
    }
  }
  sync.frame = frame;
  try {
    return Reflect.apply(fn, undefined, args);
  } finally {
    sync.frame = previous;
  }
}

/**
 * Makes `frame` the frame of the synchronous code that runs until `leaveSyncFrame(previous)`;
 * returns the frame to restore then. For a loop calling a plain function once per step (a
 * streaming task), as `callInFrame` does for one call, without its checks; the caller restores
 * the previous frame before anything else may run (an await, a throw).
 */
export function enterSyncFrame(frame: Frame): Frame | undefined {
  const previous = sync.frame;
  sync.frame = frame;
  return previous;
}

/** Restores the frame `enterSyncFrame` returned. */
export function leaveSyncFrame(previous: Frame | undefined): void {
  sync.frame = previous;
}

/** Runs `fn` with `frame` as the async context (for `withOptions` and task queues). */
export function runWithFrame<R>(frame: Frame, fn: () => R): R {
  const previous = sync.frame;
  sync.frame = undefined;
  try {
    return runInStore(frame, fn);
  } finally {
    sync.frame = previous;
  }
}

/**
 * Runs `fn(...args)` outside every frame: what it schedules does not inherit the context of
 * whoever happened to call it (the scheduler's loop runs so). Unlike `AsyncLocalStorage.exit`,
 * which in Node 20 turns the process's promise hooks off and on again on every call, this only
 * swaps the store.
 */
export function outsideFrames<A extends unknown[]>(fn: (...args: A) => void, ...args: A): void {
  const previous = sync.frame;
  sync.frame = undefined;
  try {
    if (frames.getStore() === undefined) fn(...args);
    else runInStore(undefined, fn, ...args);
  } finally {
    sync.frame = previous;
  }
}

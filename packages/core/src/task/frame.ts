import type { Frame } from './frame-contract.js';
import { frames, runAsyncInStore, runInStore } from './frame-store.js';
import type { FrameTask } from './frame-task.js';
import type { TaskOptions } from './options.js';
import type { TaskQueue } from './task-queue-contract.js';

export type { Frame } from './frame-contract.js';
export {
  asyncRunSettled,
  frames,
  framesInUse,
  holdFrames,
  settleInFrame,
} from './frame-store.js';
export type { FrameTask } from './frame-task.js';

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
 * AsyncLocalStorage so it survives its awaits, which stays on until the caller reports its
 * promise settled (`asyncRunSettled`, `settleInFrame`: see frame-store.ts). (A plain
 * function that returns a promise keeps the frame only for its synchronous part: write such
 * tasks as async functions.)
 */
export function callInFrame(frame: Frame, fn: Function, args: unknown[]): unknown {
  const previous = sync.frame;
  if (fn instanceof AsyncFunction) {
    sync.frame = undefined;
    try {
      return runAsyncInStore(frame, fn, args);
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

/**
 * Makes `frame` the frame of the rest of the synchronous run in progress, if one is (a plain
 * task's call, a `withOptions` or task-queue body's synchronous part): whoever started that run
 * restores its own previous frame when it returns. Outside such a run, nothing.
 */
export function replaceSyncFrame(frame: Frame): void {
  if (sync.frame !== undefined) sync.frame = frame;
}

/** Restores the frame `enterSyncFrame` returned. */
export function leaveSyncFrame(previous: Frame | undefined): void {
  sync.frame = previous;
}

/** Runs `fn` with `frame` as the async context (for `withOptions` and task queues). */
export function runWithFrame<R>(frame: Frame, fn: () => R): R {
  const previous = sync.frame;
  // Its synchronous part reads the frame from the variable (a region spawning a thousand tasks
  // asks for it a thousand times; the async context's store is a megamorphic look-up); what
  // continues after an await reads it from the async context.
  sync.frame = frame;
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

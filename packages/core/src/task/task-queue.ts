import { ArgumentError } from '../errors/errors.js';
import type { DTask } from './dtask.js';
import { currentFrame, runWithFrame, ScopedFrame } from './frame.js';
import { spawnTask, type TaskSink } from './spawn-task.js';
import type { SubmitTask, TaskQueue } from './task-queue-contract.js';
import { lazyWaitGuard } from './wait-guards.js';

export type { SubmitTask, TaskQueue } from './task-queue-contract.js';

/**
 * Runs `fn` with `queue` receiving every task spawned directly inside it (not inside those
 * tasks). Returns `fn`'s result.
 */
export function withTaskQueue<R>(queue: TaskQueue, fn: () => R): R {
  if (typeof queue?.enqueue !== 'function') {
    throw new ArgumentError(
      'withTaskQueue(queue, fn): queue must have an enqueue(task, submit) method',
    );
  }
  if (typeof fn !== 'function')
    throw new ArgumentError('withTaskQueue(queue, fn): fn must be a function');
  const outer = currentFrame();
  return runWithFrame(new ScopedFrame(outer?.frameTask, outer?.propagated ?? {}, queue), fn);
}

/**
 * The task queue that receives tasks spawned here (inside `withTaskQueue`, not inside a task),
 * if any. Task queues use it to tell their own region's code from other code, e.g. datadeps'
 * wait guard forbids waiting on a region's tasks only inside that region.
 */
export function currentTaskQueue(): TaskQueue | undefined {
  return currentFrame()?.queue;
}

/**
 * Spawns `f(...args)` (options first, as with `spawn`) on the scheduler that owns `beside`, so
 * a task queue can add helper tasks for a task it holds (datadeps slices a `ChunkView` so)
 * whichever context the user spawned it in. The helper goes through the current task queue
 * like any task spawned here.
 */
export function spawnBeside(
  beside: DTask<unknown>,
  first: unknown,
  ...rest: unknown[]
): DTask<unknown> {
  return spawnTask(beside.owner as TaskSink, first, rest);
}

/**
 * Dagger's `spawn_bulk`: tasks spawned inside `fn` are held and handed to the scheduler
 * together when `fn` returns (or its promise settles), which saves work for big fan-outs. A wait
 * on a held task hands over all held so far at once, so that `fn` may await its tasks or return
 * one (the promise of `spawnBulk` then resolves to that task's value).
 */
export async function spawnBulk<R>(fn: () => R | Promise<R>): Promise<R> {
  const queue = new BulkQueue();
  try {
    const result = withTaskQueue(queue, fn);
    // A plain function's tasks are handed over before its value is awaited (it may be a task).
    if (!(result instanceof Promise)) queue.flush();
    return await result;
  } finally {
    queue.close();
  }
}

/** The task queue of one `spawnBulk`: holds its tasks until `flush`. */
class BulkQueue implements TaskQueue {
  /** The tasks held, in the order spawned, with what submits each. */
  private held = new Map<DTask<unknown>, SubmitTask>();

  constructor() {
    installBulkGuard();
    openBulks.add(this);
  }

  enqueue(task: DTask<unknown>, submit: SubmitTask): void {
    this.held.set(task, submit);
  }

  /** Whether `task` is held here. */
  holds(task: DTask<unknown>): boolean {
    return this.held.has(task);
  }

  /** Hands every held task to the scheduler, in the order spawned. */
  flush(): void {
    const held = this.held;
    if (held.size === 0) return;
    this.held = new Map();
    for (const [task, submit] of held) submit(task);
  }

  /** The function has returned: no more tasks come. */
  close(): void {
    openBulks.delete(this);
    this.flush();
  }
}

/** Bulk queues whose function has not returned yet (usually none). */
const openBulks = new Set<BulkQueue>();

/** Installs (once per thread) the guard that hands a bulk queue's tasks over when one is waited on. */
const installBulkGuard = lazyWaitGuard((task) => {
  if (openBulks.size === 0) return;
  for (const queue of openBulks) if (queue.holds(task)) queue.flush();
});

/**
 * Dagger's `spawn_sequential`: each task spawned directly inside `fn` waits for the one
 * spawned before it (receiving nothing from it), so they run one after another in order.
 */
export function spawnSequential<R>(fn: () => R): R {
  let previous: DTask<unknown> | undefined;
  return withTaskQueue(
    {
      enqueue(task, submit) {
        submit(task, previous ? [previous] : undefined);
        previous = task;
      },
    },
    fn,
  );
}

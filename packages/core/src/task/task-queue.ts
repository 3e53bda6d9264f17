import { ArgumentError } from '../errors/errors.js';
import type { DTask } from './dtask.js';
import { currentFrame, runWithFrame, ScopedFrame } from './frame.js';
import { spawnTask, type TaskSink } from './spawn-task.js';

/**
 * Receives tasks spawned inside `withTaskQueue` before the scheduler does (Dagger's task
 * queues). A queue must eventually pass every task to `submit`, possibly with extra tasks to
 * wait for; datadeps uses this to add the dependencies it infers from argument annotations.
 */
export interface TaskQueue {
  /** Takes `task`, which is not yet known to the scheduler. */
  enqueue(task: DTask<unknown>, submit: SubmitTask): void;
  /**
   * When true, a task this queue submits that is ready at once goes to an idle worker right
   * away, not once the code spawning it yields: a region that spends milliseconds spawning
   * (datadeps analyses every argument) has its first tasks running meanwhile. It is never run
   * on the calling thread then (that waits for the usual pass), and it is not sent ahead
   * together with the tasks spawned after it, so leave it off for chains of value dependencies.
   */
  readonly startEarly?: boolean;
}

/** Hands a task to its scheduler, with tasks it must wait for without receiving their values. */
export type SubmitTask = (task: DTask<unknown>, extraDeps?: Iterable<unknown>) => void;

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
 * together when `fn` returns (or its promise settles), which saves work for big fan-outs.
 */
export async function spawnBulk<R>(fn: () => R | Promise<R>): Promise<R> {
  const held: [DTask<unknown>, SubmitTask][] = [];
  try {
    return await withTaskQueue({ enqueue: (task, submit) => held.push([task, submit]) }, fn);
  } finally {
    for (const [task, submit] of held) submit(task);
  }
}

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

import type { QueueLimit } from '../sched/ready/queue-limit.js';
import { currentFrame } from '../task/frame.js';
import type { TaskSink } from '../task/spawn-task.js';
import { Context, type ContextOptions } from './context.js';

const KEY = Symbol.for('dtask.defaultContext');
const slot = globalThis as unknown as { [KEY]?: Context };

/** The default context, made on first use with no plugins (tasks run in-process). */
export function defaultContext(): Context {
  let ctx = slot[KEY];
  if (ctx === undefined || ctx.isClosed) ctx = slot[KEY] = new Context();
  return ctx;
}

/**
 * Sets up the default context with `options.plugins` and returns it. Calling it again replaces
 * the default context and closes the old one (tasks still running on its workers fail with
 * `WorkerLostError`, so await them first). Modules loaded with `everywhere` are carried over:
 * they are program-wide, and the new context's workers load them too.
 */
export function configure(options: ContextOptions = {}): Context {
  const next = new Context(options);
  const previous = slot[KEY];
  slot[KEY] = next;
  if (previous && !previous.isClosed) void previous.close().catch(() => {});
  return next;
}

/** Closes the default context (its workers end); a later `spawn` makes a fresh one. */
export async function shutdown(): Promise<void> {
  const ctx = slot[KEY];
  slot[KEY] = undefined;
  await ctx?.close();
}

/** The scheduler that tasks spawned here go to: the running task's, else the default one. */
export function currentScheduler(): TaskSink {
  const owner = currentFrame()?.frameTask?.handleOwner as TaskSink | undefined;
  return owner ?? defaultContext().scheduler;
}

/**
 * Resolves once the current context (a task's own, else the default one) takes a top-level
 * `spawn` under its `maxQueue`: the producer's side of backpressure.
 *
 * ```ts
 * for await (const item of source) {
 *   await whenQueueHasRoom();
 *   spawn(work, item);
 * }
 * ```
 */
export function whenQueueHasRoom(): Promise<void> {
  const owner = currentFrame()?.frameTask?.handleOwner as { queueLimit?: QueueLimit } | undefined;
  return (owner?.queueLimit ?? defaultContext().scheduler.queueLimit).whenRoom();
}

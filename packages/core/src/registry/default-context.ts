import { ArgumentError } from '../errors/errors.js';
import type { QueueLimit } from '../sched/ready/queue-limit.js';
import { currentFrame } from '../task/frame.js';
import type { TaskSink } from '../task/spawn-task.js';
import { Context, type ContextOptions } from './context.js';

const KEY = Symbol.for('dtask.defaultContext');
/** What the slot holds after `shutdown()` when no default context had been made. */
const SHUT_DOWN = { isClosed: true, close: async () => {} } as const;
const slot = globalThis as unknown as { [KEY]?: Context | typeof SHUT_DOWN };

/**
 * The default context: the one `configure` set up, else one made on first use with no plugins
 * (tasks run in-process). After `shutdown()` it throws `ArgumentError` until `configure` is
 * called again: work spawned then would silently run without the plugins the program set up.
 */
export function defaultContext(): Context {
  const ctx = slot[KEY];
  if (ctx === undefined) return (slot[KEY] = new Context());
  if (ctx.isClosed) {
    throw new ArgumentError(
      'The default context was shut down (shutdown() or its close()); call configure({ plugins }) ' +
        'to start a new one before spawning, or configure() for an in-process one',
    );
  }
  return ctx as Context;
}

/** The open default context, or `undefined` when none is made yet or it was shut down. */
export function openDefaultContext(): Context | undefined {
  const ctx = slot[KEY];
  return ctx && !ctx.isClosed ? (ctx as Context) : undefined;
}

/**
 * With options: sets up the default context with `options.plugins` and returns it. Calling it
 * again with options replaces the default context and closes the old one (tasks still running
 * on its workers fail with `WorkerLostError`, so await them first). Modules loaded with
 * `everywhere` are carried over: they are program-wide, and the new context's workers load
 * them too. With no argument: returns the current default context as it is, making an
 * in-process one if there is none yet or it was shut down (a fresh start after `shutdown()`).
 */
export function configure(options?: ContextOptions): Context {
  if (options === undefined) {
    const current = openDefaultContext();
    if (current) return current;
  }
  const next = new Context(options);
  const previous = slot[KEY];
  slot[KEY] = next;
  if (previous && !previous.isClosed) void previous.close().catch(() => {});
  return next;
}

/**
 * Closes the default context (its workers end). Until `configure` is called again, `spawn`,
 * `toChunk` and `mutable` outside a task throw `ArgumentError` saying to call it.
 */
export async function shutdown(): Promise<void> {
  const ctx = slot[KEY];
  if (ctx === undefined) slot[KEY] = SHUT_DOWN;
  else await ctx.close();
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

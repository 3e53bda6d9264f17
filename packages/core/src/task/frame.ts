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

/** A frame made by `withOptions` or a task queue. */
export class ScopedFrame implements Frame {
  constructor(
    readonly frameTask: FrameTask | undefined,
    readonly propagated: TaskOptions,
    readonly queue: TaskQueue | undefined,
  ) {}
}

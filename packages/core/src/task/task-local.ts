import { ArgumentError } from '../errors/errors.js';
import type { Processor } from '../processor/processor.js';
import {
  currentFrame,
  type Frame,
  type FrameTask,
  frames,
  holdFrames,
  replaceSyncFrame,
} from './frame.js';

const FRAME = Symbol('dtask.tls.frame');

/** Dagger's `DTaskTLS`: what a task knows about itself; `getTls` returns it, `setTls` re-enters it. */
export interface TaskTls {
  /** The running task's id. */
  readonly taskId: number;
  /** Where it runs. */
  readonly processor: Processor | undefined;
  /** Aborted when the task is cancelled. */
  readonly signal: AbortSignal;
  /** User values carried with the task (plain data travels to other threads with the task). */
  values: Record<string, unknown>;
  /** @internal */
  readonly [FRAME]?: Frame;
}

function currentTask(caller: string): FrameTask {
  const task = currentFrame()?.frameTask;
  if (!task) {
    throw new ArgumentError(`${caller} can only be called inside a task (see inTask())`);
  }
  return task;
}

/** Dagger's `in_task`: true while running inside a dtask task. */
export function inTask(): boolean {
  return currentFrame()?.frameTask !== undefined;
}

/** Dagger's `task_processor`: the processor running the current task. Throws outside a task. */
export function taskProcessor(): Processor {
  const proc = currentTask('taskProcessor()').processor;
  if (!proc) throw new ArgumentError('taskProcessor(): the current task has not been placed');
  return proc;
}

/** The current task's cancellation signal: aborted by `cancel()`, the `signal` option or `halt`. */
export function taskSignal(): AbortSignal {
  return currentTask('taskSignal()').abortSignal;
}

/** Dagger's `get_tls`: the current task's local state. Throws outside a task. */
export function getTls(): TaskTls {
  const frame = currentFrame()!;
  const task = currentTask('getTls()');
  task.tlsValues ??= {};
  return {
    taskId: task.id,
    processor: task.processor,
    signal: task.abortSignal,
    values: task.tlsValues,
    [FRAME]: frame,
  };
}

/**
 * Dagger's `set_tls!`: makes `tls` (from `getTls`, possibly in another callback that lost the
 * task's context) the current task state for the rest of this synchronous run and the async
 * work it starts, also inside another task's synchronous call or a `withOptions` body (whose
 * own frame comes back when it returns). A `{ values }` object alone replaces the current
 * task's values.
 */
export function setTls(tls: Pick<TaskTls, 'values'> & Partial<TaskTls>): void {
  if (typeof tls !== 'object' || tls === null) {
    throw new ArgumentError('setTls(tls): tls must be an object from getTls(), or { values }');
  }
  const frame = tls[FRAME];
  if (frame) {
    holdFrames();
    frames.enterWith(frame);
    // The running synchronous call reads its frame from a variable before the async context.
    replaceSyncFrame(frame);
  }
  const task = currentTask('setTls()');
  if (tls.values !== undefined) {
    if (typeof tls.values !== 'object' || tls.values === null) {
      throw new ArgumentError('setTls(tls): tls.values must be an object');
    }
    task.tlsValues = tls.values;
  }
}

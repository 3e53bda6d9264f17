import { ArgumentError } from '../../errors/errors.js';
import { isDTask } from '../../task/dtask.js';
import { currentFrame } from '../../task/frame.js';
import { SchedulerHandle } from '../../task/scheduler-handle.js';
import type { SchedulerState } from '../scheduler-state.js';
import { LocalSchedulerHandle } from './local-sch-handle.js';

export { SchedulerHandle };

/** What a task's frame offers when its handle is not the local scheduler's (a worker task). */
interface HandleMaker {
  schedulerHandle(): SchedulerHandle;
}

function requireHandle(handle: unknown, call: string): SchedulerHandle {
  if (!(handle instanceof SchedulerHandle)) {
    throw new ArgumentError(`${call}: the first argument must be a handle from schHandle()`);
  }
  return handle;
}

/** Dagger's `sch_handle`: the scheduler handle of the running task. Throws outside a task. */
export function schHandle(): SchedulerHandle {
  const task = currentFrame()?.frameTask;
  if (isDTask(task)) return new LocalSchedulerHandle(task.owner as SchedulerState, task);
  if (typeof (task as Partial<HandleMaker> | undefined)?.schedulerHandle === 'function') {
    return (task as unknown as HandleMaker).schedulerHandle();
  }
  throw new ArgumentError('schHandle() can only be called inside a running task');
}

/**
 * Dagger's `add_thunk!`: adds `f(...args)` to the graph (arguments that are tasks become
 * dependencies) and returns its id, usable with `handle.fetch`/`handle.wait`.
 */
export function addThunk(handle: SchedulerHandle, f: unknown, ...args: unknown[]): number {
  return requireHandle(handle, 'addThunk(handle, f, ...args)').addThunk(f, args);
}

/**
 * Dagger's `exec!`: runs `f` in the scheduler (on its thread) and resolves to its result. From
 * a worker thread, `f` travels like a task function and its result is copied back.
 */
export async function exec<R>(
  handle: SchedulerHandle,
  f: (scheduler: SchedulerState) => R,
): Promise<Awaited<R>> {
  const h = requireHandle(handle, 'exec(handle, f)');
  if (typeof f !== 'function') throw new ArgumentError('exec(handle, f): f must be a function');
  return (await h.exec(f as (scheduler: unknown) => unknown)) as Awaited<R>;
}

/**
 * Dagger's `halt!`: stops the scheduler's current work: every task it holds (the caller
 * included) fails with `CancelledError`. The scheduler keeps serving tasks spawned later.
 */
export function halt(handle: SchedulerHandle): void {
  requireHandle(handle, 'halt(handle)').halt();
}

/**
 * Dagger's `get_dag_ids`: the graph the scheduler holds, as task id → ids of its dependents.
 * Synchronous everywhere: a worker thread blocks on shared memory until the scheduler answers.
 */
export function getDagIds(handle: SchedulerHandle): Map<number, Set<number>> {
  return requireHandle(handle, 'getDagIds(handle)').dagIds();
}

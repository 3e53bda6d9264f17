import { ArgumentError, CancelledError, DynamicTaskError } from '../../errors/errors.js';
import { type DTask, isDTask } from '../../task/dtask.js';
import { currentFrame, runWithFrame } from '../../task/frame.js';
import { spawnTask } from '../../task/spawn-task.js';
import type { Scheduler } from '../scheduler.js';
import { isDownstream, walkDag } from './dag-walk.js';

/**
 * Dagger's scheduler handle: lets a running task add tasks to the graph, query it, run code
 * in the scheduler, or halt it. Get one with `schHandle()` inside a task.
 */
export class SchedulerHandle {
  /** @internal Tasks added through this handle, by id. */
  readonly added = new Map<number, DTask<unknown>>();

  constructor(
    /** @internal */
    readonly scheduler: Scheduler,
    /** @internal The task that asked for the handle. */
    readonly task: DTask<unknown>,
  ) {}

  /** The id of the task holding this handle. */
  get taskId(): number {
    return this.task.id;
  }

  /** Dagger's `fetch(h, id)`: the value of task `id`; not the caller itself nor its dependents. */
  fetch(id: number): Promise<unknown> {
    return this.lookup(id, 'fetch').fetch();
  }

  /** Dagger's `wait(h, id)`: resolves when task `id` has finished. */
  wait(id: number): Promise<void> {
    return this.lookup(id, 'wait').wait();
  }

  private lookup(id: number, verb: string): DTask<unknown> {
    if (!Number.isInteger(id))
      throw new ArgumentError(`handle.${verb}(id): id must be a task id (an integer)`);
    if (id === this.task.id) {
      throw new DynamicTaskError(
        `handle.${verb}(${id}): a task cannot ${verb} itself; that would wait forever`,
      );
    }
    const task = this.added.get(id) ?? dagOf(this).tasks.get(id);
    if (!task)
      throw new ArgumentError(`handle.${verb}(${id}): no task with that id in this scheduler`);
    if (isDownstream(this.task, task)) {
      throw new DynamicTaskError(
        `handle.${verb}(${id}): task #${id} depends on the calling task #${this.task.id}, so waiting on it would deadlock`,
      );
    }
    return task;
  }
}

function dagOf(handle: SchedulerHandle) {
  return walkDag(handle.scheduler.liveTasks(handle.task));
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
  if (!isDTask(task)) {
    throw new ArgumentError('schHandle() can only be called inside a running task');
  }
  return new SchedulerHandle(task.owner as Scheduler, task);
}

/**
 * Dagger's `add_thunk!`: adds `f(...args)` to the graph (arguments that are tasks become
 * dependencies) and returns its id, usable with `handle.fetch`/`handle.wait`.
 */
export function addThunk(handle: SchedulerHandle, f: unknown, ...args: unknown[]): number {
  const h = requireHandle(handle, 'addThunk(handle, f, ...args)');
  const task = runWithFrame(h.task, () => spawnTask(h.scheduler, f, args));
  h.added.set(task.id, task);
  return task.id;
}

/** Dagger's `exec!`: runs `f` in the scheduler (on its thread) and resolves to its result. */
export async function exec<R>(
  handle: SchedulerHandle,
  f: (scheduler: Scheduler) => R,
): Promise<Awaited<R>> {
  const h = requireHandle(handle, 'exec(handle, f)');
  if (typeof f !== 'function') throw new ArgumentError('exec(handle, f): f must be a function');
  return await f(h.scheduler);
}

/**
 * Dagger's `halt!`: stops the scheduler's current work: every task it holds (the caller
 * included) fails with `CancelledError`. The scheduler keeps serving tasks spawned later.
 */
export function halt(handle: SchedulerHandle): void {
  const h = requireHandle(handle, 'halt(handle)');
  const { tasks } = dagOf(h);
  const reason = new CancelledError(`The scheduler was halted by task #${h.task.id}`);
  for (const t of tasks.values()) h.scheduler.cancel(t, reason);
}

/** Dagger's `get_dag_ids`: the graph the scheduler holds, as task id → ids of its dependents. */
export function getDagIds(handle: SchedulerHandle): Map<number, Set<number>> {
  return dagOf(requireHandle(handle, 'getDagIds(handle)')).edges;
}

import { ArgumentError, DynamicTaskError } from '../errors/errors.js';
import type { DTask } from '../task/dtask.js';
import { type Frame, type FrameTask, runWithFrame } from '../task/frame.js';
import { SchedulerHandle } from '../task/scheduler-handle.js';
import { spawnTask } from '../task/spawn-task.js';
import type { ProxyOwner } from './proxy-owner.js';

/**
 * `schHandle()` inside a task on a worker thread: tasks it adds go to the scheduler (never placed
 * by the worker itself, so that any task may fetch them by id); `fetch`, `wait`, `exec` and `halt` ask the scheduler, which checks them
 * against its graph exactly as for a local handle; `getDagIds` blocks the worker thread on
 * shared memory until the scheduler answers. Requests go out on behalf of `caller`: the task
 * itself, or for a task its worker placed itself (`OwnedTask`) the nearest one the scheduler
 * placed.
 */
export class WorkerSchedulerHandle extends SchedulerHandle {
  private readonly added = new Map<number, DTask<unknown>>();

  constructor(
    private readonly proxy: ProxyOwner,
    private readonly task: Frame & FrameTask,
    private readonly caller: number = task.id,
  ) {
    super();
  }

  get taskId(): number {
    return this.task.id;
  }

  fetch(id: number): Promise<unknown> {
    this.check(id, 'fetch');
    const own = this.added.get(id);
    return own ? own.fetch() : this.proxy.askForTask('fetch', this.caller, id);
  }

  wait(id: number): Promise<void> {
    this.check(id, 'wait');
    const own = this.added.get(id);
    return (own ? own.wait() : this.proxy.askForTask('wait', this.caller, id)) as Promise<void>;
  }

  addThunk(f: unknown, args: unknown[]): number {
    const task = this.proxy.forScheduler(() =>
      runWithFrame(this.task, () => spawnTask(this.proxy, f, args)),
    );
    this.added.set(task.id, task);
    return task.id;
  }

  exec(f: (scheduler: unknown) => unknown): Promise<unknown> {
    return this.proxy.execInScheduler(this.caller, f);
  }

  halt(): void {
    this.proxy.halt(this.caller);
  }

  dagIds(): Map<number, Set<number>> {
    return this.proxy.dagIds(this.caller);
  }

  /** The checks that need no scheduler; the rest (unknown ids, dependents) happen there. */
  private check(id: number, verb: string): void {
    if (!Number.isInteger(id))
      throw new ArgumentError(`handle.${verb}(id): id must be a task id (an integer)`);
    if (id === this.task.id) {
      throw new DynamicTaskError(
        `handle.${verb}(${id}): a task cannot ${verb} itself; that would wait forever`,
      );
    }
  }
}

import { ArgumentError, CancelledError, DynamicTaskError } from '../../errors/errors.js';
import type { DTask } from '../../task/dtask.js';
import { runWithFrame } from '../../task/frame.js';
import { SchedulerHandle } from '../../task/scheduler-handle.js';
import { spawnTask } from '../../task/spawn-task.js';
import type { SchedulerState } from '../scheduler-state.js';
import { isDownstream, liveTasks, pendingDependents, walkDag } from './dag-walk.js';

/**
 * The handle of a task that runs on the scheduler's own thread, and the scheduler's side of a
 * worker task's handle: it acts on the scheduler directly.
 */
export class LocalSchedulerHandle extends SchedulerHandle {
  /** Tasks added through this handle, by id. */
  readonly added = new Map<number, DTask<unknown>>();

  constructor(
    readonly scheduler: SchedulerState,
    /** The task that asked for the handle. */
    readonly task: DTask<unknown>,
    /** Finds other tasks it may fetch by id (those its worker spawned; see `serveDynamic`). */
    private readonly known?: (id: number) => DTask<unknown> | undefined,
  ) {
    super();
    // Dynamic control is in use: keep finished tasks' inputs walkable (weak-inputs.ts).
    scheduler.weakUpstream = true;
  }

  get taskId(): number {
    return this.task.id;
  }

  fetch(id: number): Promise<unknown> {
    return this.lookup(id, 'fetch').fetch();
  }

  wait(id: number): Promise<void> {
    return this.lookup(id, 'wait').wait();
  }

  addThunk(f: unknown, args: unknown[]): number {
    const task = runWithFrame(this.task, () => spawnTask(this.scheduler, f, args));
    this.added.set(task.id, task);
    return task.id;
  }

  async exec(f: (scheduler: SchedulerState) => unknown): Promise<unknown> {
    return await f(this.scheduler);
  }

  halt(): void {
    const reason = new CancelledError(`The scheduler was halted by task #${this.task.id}`);
    for (const t of this.dag().tasks.values()) this.scheduler.cancel(t, reason);
  }

  dagIds(): Map<number, Set<number>> {
    return pendingDependents(this.dag());
  }

  private dag() {
    return walkDag(liveTasks(this.scheduler, this.task));
  }

  private lookup(id: number, verb: string): DTask<unknown> {
    if (!Number.isInteger(id))
      throw new ArgumentError(`handle.${verb}(id): id must be a task id (an integer)`);
    if (id === this.task.id) {
      throw new DynamicTaskError(
        `handle.${verb}(${id}): a task cannot ${verb} itself; that would wait forever`,
      );
    }
    const task = this.added.get(id) ?? this.known?.(id) ?? this.dag().tasks.get(id);
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

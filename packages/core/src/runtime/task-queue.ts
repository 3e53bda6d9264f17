import { taskList, type WorkerTask } from './worker-task.js';

/**
 * A first-in, first-out queue of worker tasks in one array that is reused: once grown it
 * allocates nothing per task, and it keeps no task once taken (nor the values that task holds).
 */
export class TaskQueue {
  private readonly list: (WorkerTask | undefined)[] = taskList();
  private head = 0;
  private end = 0;

  /** Adds `task` at the end. */
  push(task: WorkerTask): void {
    if (this.end < this.list.length) this.list[this.end] = task;
    else this.list.push(task);
    this.end++;
  }

  /** Takes the oldest task out; undefined when empty. */
  shift(): WorkerTask | undefined {
    if (this.head === this.end) return undefined;
    const task = this.list[this.head];
    this.list[this.head++] = undefined;
    if (this.head === this.end) this.head = this.end = 0;
    return task;
  }

  /** Drops every task. */
  clear(): void {
    if (this.head !== this.end) this.list.fill(undefined);
    this.head = this.end = 0;
  }
}

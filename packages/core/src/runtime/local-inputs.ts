import type { LocalStore } from '../chunk/local-store.js';
import { InputLostError } from '../errors/errors.js';
import { AWAITED } from '../protocol/protocol.js';
import { takenLocally } from './local-consumers.js';
import { taskList, type WorkerTask } from './worker-task.js';

/**
 * The results kept here as inputs of the tasks here: a task sent ahead takes one that exists
 * at once, or waits for it (local successor execution); with a store that may write values
 * out (`backlog`) or keeps those in use (`hold`), a task reads its local inputs as it starts,
 * not as they arrive. Counts the local consumers of each result still to come, so that a small
 * result the scheduler got inline stays here until each of them has taken it.
 */
export class LocalInputs {
  /** Local consumers still to come for a result, by key (see `countLocalConsumers`). */
  readonly consumers = new Map<number, number>();
  /** Small results kept only for local consumers (the scheduler got them inline). */
  readonly keptForConsumers = new Set<number>();
  /** Tasks waiting for local results, by the key they wait for. */
  readonly waitingFor = new Map<number, WorkerTask[]>();
  /**
   * Whether tasks read their local inputs as they start (`WorkerTask.localReads`), not as they
   * arrive: with a store that may write values out (`backlog`) or keeps those in use (`hold`).
   */
  readonly readsAtStart: boolean;

  constructor(private readonly store: LocalStore) {
    this.readsAtStart = store.backlog !== undefined || store.hold !== undefined;
  }

  /**
   * Argument `index` of `task` is result `key` of this runtime: given now, or awaited. With
   * index `AWAITED`, no argument takes it: `task` only starts once it exists.
   */
  take(task: WorkerTask, index: number, key: number): void {
    if (this.store.has(key)) {
      if (index === AWAITED) this.consumed(key);
      else if (this.readsAtStart) (task.localReads ??= []).push(index, key);
      else {
        task.args[index] = this.store.get(key);
        this.consumed(key);
      }
      return;
    }
    task.missing++;
    let list = this.waitingFor.get(key);
    if (!list) this.waitingFor.set(key, (list = taskList()));
    list.push(task);
    (task.awaited ??= []).push(index, key);
  }

  /** A local consumer took result `key`: drop it once nobody else here will, if only kept for them. */
  consumed(key: number): void {
    takenLocally(key, this.consumers, this.keptForConsumers, this.store);
  }

  /**
   * Result `key` of this runtime is `value` now: the tasks in `waiters` waiting for it take it,
   * and each whose inputs all exist now goes to `ready`.
   */
  arrived(
    key: number,
    value: unknown,
    waiters: WorkerTask[],
    ready: (task: WorkerTask) => void,
  ): void {
    this.waitingFor.delete(key);
    for (const t of waiters) {
      const awaited = t.awaited!;
      for (let i = 0; i < awaited.length; i += 2) {
        if (awaited[i + 1] !== key) continue;
        if (awaited[i] === AWAITED) this.consumed(key);
        else if (this.readsAtStart && this.store.has(key)) {
          // A spilling store may write the value out (and drop this object) while t waits for
          // the disk: t reads it from the store as it starts, so it takes the live copy.
          (t.localReads ??= []).push(awaited[i], key);
        } else {
          t.args[awaited[i]] = value;
          this.consumed(key);
        }
      }
      if (--t.missing === 0 && t.pendingFetches === 0) ready(t);
    }
  }

  /**
   * Reads the inputs `task` left in the store until it starts. Returns the error it fails with
   * when one is gone or cannot be read, else undefined.
   */
  readAtStart(task: WorkerTask): { error: unknown } | undefined {
    const reads = task.localReads!;
    task.localReads = undefined;
    for (let i = 0; i < reads.length; i += 2) {
      const key = reads[i + 1];
      if (!this.store.has(key)) {
        return { error: new InputLostError(`Input ${reads[i]} (result ${key}) is gone`) };
      }
      try {
        task.args[reads[i]] = this.store.get(key); // may read it back from disk
      } catch (error) {
        return { error };
      }
      // Kept in memory, this very object, until the task ends: it may change it in place.
      if (this.store.hold !== undefined) {
        this.store.hold(key);
        (task.held ??= []).push(key);
      }
      this.consumed(key);
    }
    return undefined;
  }

  /** Ends the holds `task` took on its inputs (`readAtStart`) once it has ended. */
  unhold(task: WorkerTask): void {
    const held = task.held;
    if (held === undefined) return;
    task.held = undefined;
    for (const key of held) this.store.unhold?.(key);
  }
}

import type { Batcher } from '../../../protocol/batcher.js';
import type { ToWorker } from '../../../protocol/protocol.js';
import type { DTask } from '../../../task/dtask.js';

/** The shortest list of held results' tasks that is compacted (see `HeldResults.live`). */
const MIN_COMPACT = 1024;

/**
 * A `WorkerConnection`'s bookkeeping of the results its worker holds for finished tasks: which
 * ones the worker moved from device to host memory, and their release. A result is released
 * once its task has been collected (a `FinalizationRegistry`), or at once when no task wants
 * it; the releases of one turn go to the worker in one message.
 */
export class HeldResults {
  /** Keys of results the runtime moved from device to host memory (`movedToHost`). */
  private readonly inHost = new Set<number>();
  /** Keys released this turn, not yet sent. */
  private readonly released: number[] = [];
  private readonly finalizer = new FinalizationRegistry<number>((key) => {
    this.collected++;
    this.release(key);
  });
  private readonly groups = new FinalizationRegistry<readonly number[]>((keys) => {
    for (const key of keys) this.release(key);
  });
  /**
   * The tasks whose results the worker may still hold (weakly: see `tasks`), in the order
   * they finished: a push per task, where a map by key cost a hashed insert and, once the task
   * was collected, a delete. A collected task's entry stays until the list is compacted
   * (`compactAt`), which keeps it within twice the tasks still alive, plus `MIN_COMPACT`.
   */
  private live: WeakRef<DTask<unknown>>[] = [];
  /** The length of `live` at which its collected entries are dropped, if enough were. */
  private compactAt = MIN_COMPACT;
  /**
   * Tasks of `live` collected since it was last compacted, as the finalizer has reported them
   * (it may lag behind the collector, never run ahead of it). The list is walked only once
   * half of it is collected: each `deref` of a walk is a runtime call that also keeps its task
   * alive to the end of the turn, and while a program holds its results (arrays kept until the
   * main thread's next full collection) a walk found nothing to drop. 0.5 µs of main-thread
   * CPU a block result, in a profile of 2 KiB blocks kept on 2 threads.
   */
  private collected = 0;

  constructor(
    /** Messages to the worker. */
    private readonly out: Batcher<ToWorker>,
    /** Whether the worker is gone (its results with it): nothing is released then. */
    private readonly isLost: () => boolean,
  ) {}

  /**
   * Whether the result under `key` (a `RemoteResult`'s key, `{ connection, key }`) is in host
   * memory (`RemoteResult`'s `inHost`).
   */
  readonly isInHost = (key: unknown): boolean =>
    this.inHost.size > 0 && this.inHost.has((key as { key: number }).key);

  /** The worker moved these results from device to host memory. */
  movedToHost(keys: readonly number[]): void {
    for (const key of keys) this.inHost.add(key);
  }

  /** Releases result `key` once `task`, whose result it is, has been collected. */
  releaseWith(task: DTask<unknown>, key: number): void {
    this.finalizer.register(task, key);
    if (this.live.length >= this.compactAt && 2 * this.collected >= this.live.length) {
      this.live = this.live.filter((ref) => ref.deref() !== undefined);
      this.compactAt = Math.max(MIN_COMPACT, 2 * this.live.length);
      this.collected = 0;
    }
    this.live.push(new WeakRef(task));
  }

  /** Releases results `keys` together once `holder` (held by each of their handles) is collected. */
  releaseAllWith(holder: object, keys: readonly number[]): void {
    this.groups.register(holder, keys);
  }

  /**
   * The tasks not yet collected whose results the worker was given to hold (some may have
   * been fetched home since: their value is no longer this worker's `RemoteResult`).
   */
  *tasks(): Iterable<DTask<unknown>> {
    const seen = new Set<DTask<unknown>>(); // a task run here twice is listed twice
    for (const ref of this.live) {
      const task = ref.deref();
      if (task === undefined || seen.has(task)) continue;
      seen.add(task);
      yield task;
    }
  }

  /** Tells the worker to drop result `key`, with the others released this turn. */
  release(key: number): void {
    if (this.isLost()) return;
    if (this.inHost.size > 0) this.inHost.delete(key);
    this.released.push(key);
    if (this.released.length === 1) {
      queueMicrotask(() => {
        const keys = this.released.splice(0);
        if (!this.isLost() && keys.length > 0) this.out.push({ op: 'release', keys });
      });
    }
  }
}

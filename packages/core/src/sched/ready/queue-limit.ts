import { QueueFullError } from '../../errors/errors.js';
import { currentFrame } from '../../task/frame.js';

/**
 * Backpressure on submission (Piscina's `maxQueue` and `queueSize`): counts a context's
 * unfinished tasks (handed to its scheduler, waiting or running, not yet settled), refuses a new
 * top-level one past `max`, and wakes producers waiting for room.
 */
export class QueueLimit {
  /** The most unfinished tasks before `spawn` refuses more; undefined: no limit. */
  max: number | undefined = undefined;
  /** Tasks handed to the scheduler and not yet settled. */
  unfinished = 0;
  private waiters: (() => void)[] | undefined = undefined;

  /**
   * Throws `QueueFullError` when a new top-level task would pass the limit. Tasks spawned
   * inside tasks are never refused: their parent may be waiting for them.
   */
  admit(): void {
    if (this.max === undefined || this.unfinished < this.max) return;
    if (currentFrame()?.frameTask === undefined) {
      throw new QueueFullError(
        `spawn: the context holds ${this.unfinished} unfinished tasks, its maxQueue. ` +
          'Wait for room before spawning (await whenQueueHasRoom()), or raise maxQueue',
      );
    }
  }

  /** A counted task settled: one more may come. */
  settled(): void {
    this.unfinished--;
    // Waiters wake once a quarter of the limit has settled, not at the first free place: a
    // producer then refills in batches, one pass of the scheduler for many tasks.
    if (this.waiters !== undefined && this.unfinished <= this.lowWater()) {
      const waiters = this.waiters;
      this.waiters = undefined;
      for (const wake of waiters) wake();
    }
  }

  /** True while a top-level `spawn` would be taken. */
  hasRoom(): boolean {
    return this.max === undefined || this.unfinished < this.max;
  }

  private lowWater(): number {
    const max = this.max ?? Number.POSITIVE_INFINITY;
    return max - Math.max(1, Math.floor(max / 4));
  }

  /**
   * Resolves at once while a top-level `spawn` would be taken; once the limit is reached, when
   * a quarter of it has settled (at least one place).
   */
  whenRoom(): Promise<void> {
    if (this.hasRoom()) return Promise.resolve();
    return new Promise<void>((resolve) => {
      this.waiters ??= [];
      this.waiters.push(resolve);
    });
  }
}

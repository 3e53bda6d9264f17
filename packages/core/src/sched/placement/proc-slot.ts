import type { Processor } from '../../processor/processor.js';
import type { DTask } from '../../task/dtask.js';
import type { Executor } from '../dispatch/executor.js';
import { ReadyQueue } from '../ready/ready-queue.js';
import { ProcessorStats } from '../stats/processor-stats.js';

/**
 * The scheduler's record of one compute processor of its context: who runs its tasks and
 * how busy it is. Placement reads `load`; dispatch fills `inFlight` up to the executor's
 * capacity and parks the rest in `backlog`.
 */
export class ProcSlot {
  /** Estimated milliseconds of work placed here and not finished yet. */
  load = 0;
  /** Occupancy units running now. */
  inFlight = 0;
  /** Estimated milliseconds of work sent to the executor and not finished (part of `load`). */
  sentLoad = 0;
  /** Placed tasks waiting for capacity. */
  readonly backlog = new ReadyQueue<DTask<unknown>>();
  /** Removed by `rmProcs`: finishes what it holds, gets nothing new. */
  removed = false;
  /** Why it was removed, when its plugin said (named when a task scoped to it cannot run). */
  removedReason: string | undefined = undefined;
  /** A coalesced refill of this slot is scheduled (`releaseSlot`, dispatch/slot-queue.ts). */
  refillDue = false;
  /** Runs, run and wait times seen here, for `stats()` (a replacing slot takes them over). */
  stats = new ProcessorStats();

  constructor(
    readonly proc: Processor,
    readonly executor: Executor,
  ) {}

  /** Nothing sent to it and nothing parked for it. */
  get idle(): boolean {
    return this.inFlight === 0 && this.backlog.length === 0;
  }

  /** What giving it work while it idles costs placement (`Executor.wakeMs`; 0 when unsaid). */
  get wakeMs(): number {
    return this.executor.wakeMs ?? 0;
  }
}

import type { StorageDevice } from '../chunk/storage-device.js';
import type { DTask } from '../task/dtask.js';
import type { IdTable } from '../task/id-table.js';
import type { TaskSink } from '../task/spawn-task.js';
import type { ExecutorSink } from './dispatch/executor.js';
import type { CandidateSlots } from './placement/candidate-slots.js';
import type { CostModel } from './placement/cost-model.js';
import type { ProcSlot } from './placement/proc-slot.js';
import type { QueueLimit } from './ready/queue-limit.js';
import type { ReadyQueue } from './ready/ready-queue.js';
import type { SchedulerStats } from './stats/scheduler-stats.js';

// The scheduler's state as its phases see it (Dagger's `ComputeState`): the fields they read
// and the calls they make back, apart from the `Scheduler` class that holds them, so a phase
// takes this type and never imports the class (scripts/check-import-order.mjs keeps it so).
// A phase that needs only one part of it takes that part: the slot table or the lineage state.
// A phase that needs another phase calls it (`makeReady`, `requeue`, `startTask`, `linkTask`,
// `submitTask`, `failFromUpstream`, `completeTask`, `failTask`); executors report through the
// `sink`, which calls the completion phases; the calls left on this type are the contract by
// which tasks (`TaskSink`, `TaskOwner`) reach their scheduler.

/** The processors of a scheduler: what placement, slot bookkeeping and stats read. */
export interface SlotTable {
  /** Compute processors of the context, in order of addition (removed ones left out). */
  slots: ProcSlot[];
  /** Slots by processor id (removed ones too, until their tasks finish). */
  readonly slotById: Map<string, ProcSlot>;
}

/** What recovering from lost workers reads and counts (sched/faults). */
export interface LineageState {
  /**
   * Longest chain of worker-held results kept recomputable from lineage before one is copied
   * to the scheduler's thread and its lineage let go (faults/lineage.ts).
   */
  lineageDepth: number;
  /** Workers lost so far; while 0, dispatch skips looking for lost inputs. */
  losses: number;
}

/**
 * What joining the ready queue reads and sets (`makeReady`): the queue, the loop's flags and
 * the counters, and the slots (whether an idle worker may be woken at once).
 */
export interface ReadyState extends SlotTable {
  /** Tasks ready to be placed, in order. */
  readonly ready: ReadyQueue<DTask<unknown>>;
  /** True while a run of the loop is queued (`makeReady` queues one per burst). */
  scheduled: boolean;
  /** Runs the loop outside any async context (what `makeReady` queues). */
  readonly pumpOutside: () => void;
  /** Places ready tasks on idle workers now, while their spawner runs. */
  readonly placeEarly: () => void;
  /** Idle processors sent work at once since this pass of the loop began (see `wakeNow`). */
  readonly wokeAtOnce: number;
  /** Whether to time inline tasks (only useful once there is a choice of processor). */
  learnInline: boolean;
  /** Settled-task counts and the sampling countdown of `stats()`. */
  readonly stats: SchedulerStats;
}

/**
 * The tables of the tasks a scheduler holds (`liveTasks`, `followTasks`): ready, running, parked
 * on the slots, and the hook told of each task submitted.
 */
export interface TaskTables extends SlotTable {
  /** Tasks ready to be placed, in order. */
  readonly ready: ReadyQueue<DTask<unknown>>;
  /** Tasks handed to a non-inline executor or awaiting a promise, for cancel/halt/getDagIds. */
  readonly running: IdTable<DTask<unknown>>;
  /** Told of every task submitted while something follows the context's tasks. */
  onSubmit: ((task: DTask<unknown>) => void) | undefined;
}

/**
 * The state of one scheduler and the calls its phases make back into it. `Scheduler`
 * implements it; every phase (completion, dispatch, dynamic, faults, placement, stats, the
 * worker connection) takes it as an argument.
 */
export interface SchedulerState extends ReadyState, TaskTables, LineageState, TaskSink {
  /**
   * Where executors report a task's outcome (`ExecutorSink`, completion/completion-sink.ts): it
   * calls the completion phases themselves, not this state.
   */
  readonly sink: ExecutorSink;
  /** Learned run times and bandwidths. */
  readonly costs: CostModel;
  /** The context's storage devices by name (the `device` option). */
  storageDevice: (name: string) => StorageDevice | undefined;
  /** Unfinished tasks, and the context's `maxQueue` on them. */
  readonly queueLimit: QueueLimit;
  /** Which processors a task may run on (kept for default-placed tasks). */
  readonly candidateSlots: CandidateSlots;
  /** Slots whose executors run tasks elsewhere (functions must travel there). */
  shippingSlots: number;
  /** Set once the context closes: a task about to be placed is cancelled instead. */
  closing: boolean;
  /** Whether finished local tasks keep weak references to their inputs (`keepInputs`). */
  weakUpstream: boolean;
  /** True while the scheduler's loop runs (a task placed early must not re-enter it). */
  readonly pumping: boolean;
  /**
   * A processor that was idle until the task being started now (`startTask`): the loop has its
   * executor send at once, not after the whole burst is placed.
   */
  woke: ProcSlot | undefined;
  /** Told when processors' load may have changed, while a plugin listens. */
  onLoadChange: (() => void) | undefined;
}

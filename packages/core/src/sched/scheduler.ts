import { isChunk } from '../chunk/chunk.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import type { Processor } from '../processor/processor.js';
import type { DTask } from '../task/dtask.js';
import { outsideFrames } from '../task/frame.js';
import { IdTable } from '../task/id-table.js';
import type { TaskOptions } from '../task/options.js';
import { TaskFlags, TaskState } from '../task/task-state.js';
import { runGuards } from '../task/wait-guards.js';
import { cancelTask } from './completion/cancel-task.js';
import { closedBeforeStart } from './completion/cancel-unstarted.js';
import { fetchChunkOf } from './completion/chunk-of-task.js';
import { CompletionSink } from './completion/completion-sink.js';
import { failTask } from './completion/fail-task.js';
import { takeHome } from './completion/take-home.js';
import type { Executor } from './dispatch/executor.js';
import { isFull, mayWakeIdle, priorityOf, queueSeconds, wakeNow } from './dispatch/slot-queue.js';
import { startTask } from './dispatch/start-task.js';
import { liveTasks } from './dynamic/dag-walk.js';
import { weakInputs } from './dynamic/weak-inputs.js';
import { DEFAULT_LINEAGE_DEPTH } from './faults/lineage.js';
import { fetchRecomputing, waitForLostInputs } from './faults/recompute.js';
import { markWrittenInPlace } from './faults/written-in-place.js';
import { admitFunction } from './placement/admit.js';
import { pinResultToFunctionChunk } from './placement/allowed-processors.js';
import { CandidateSlots } from './placement/candidate-slots.js';
import { candidatesOf } from './placement/candidates-of.js';
import { chooseSlot } from './placement/choose-slot.js';
import { CostModel } from './placement/cost-model.js';
import { hereOf } from './placement/data-home.js';
import type { LocalClosures } from './placement/local-closure.js';
import { markMovedArgs } from './placement/moved-args.js';
import type { ProcSlot } from './placement/proc-slot.js';
import { addSlot, removeSlot } from './placement/slot-set.js';
import { waitForPieces } from './placement/wait-for-pieces.js';
import { QueueLimit } from './ready/queue-limit.js';
import { ReadyQueue } from './ready/ready-queue.js';
import { submitTask } from './ready/submit-task.js';
import type { SchedulerState } from './scheduler-state.js';
import { SchedulerStats } from './stats/scheduler-stats.js';

/** Longest stretch (ms) the scheduler runs tasks before letting I/O and timers in. */
const SLICE_MS = 8;

/** Fewest tasks a slice places per processor of another thread or process (see `pump`). */
const SLICE_TASKS_PER_WORKER = 32;

/**
 * The scheduler of one `Context`: receives submitted tasks, tracks their dependencies, places
 * each ready task on the processor where it should finish first, hands it to that processor's
 * executor, and settles results and failures. Hot state is the task objects themselves and a
 * ring buffer; there is no per-task closure or promise unless a caller awaits a task.
 */
export class Scheduler implements SchedulerState {
  /** Learned run times and bandwidths. */
  readonly costs = new CostModel();
  /** Where executors report a task's outcome: straight to the completion phases. */
  readonly sink: CompletionSink = new CompletionSink(this);
  /** Settled-task counts and the sampling countdown of `stats()` (sched/stats). */
  readonly stats = new SchedulerStats();
  /** @internal The context's storage devices by name (the `device` option); set by `Context`. */
  storageDevice: (name: string) => StorageDevice | undefined = () => undefined;
  /** Compute processors of the context, in order of addition. */
  slots: ProcSlot[] = [];
  /** @internal Tasks ready to be placed, in order. */
  readonly ready = new ReadyQueue<DTask<unknown>>();
  /** @internal Slots by processor id (removed ones too, until their tasks finish). */
  readonly slotById = new Map<string, ProcSlot>();
  /** Tasks handed to a non-inline executor or awaiting a promise, for cancel/halt/getDagIds. */
  readonly running = new IdTable<DTask<unknown>>();
  /** Unfinished tasks, and the context's `maxQueue` on them. */
  readonly queueLimit = new QueueLimit();
  /** @internal True while a run of the loop is queued (see `makeReady`). */
  scheduled = false;
  /** @internal Set once the context closes: a task about to be placed is cancelled instead. */
  closing = false;
  /** @internal Whether to time inline tasks (only useful once there is a choice of processor). */
  learnInline = false;
  /**
   * @internal Set once a task of this context asks for a scheduler handle (`schHandle`): from
   * then on a finished local task keeps weak references to its input tasks, not their ids, so
   * `getDagIds` lists every finished upstream task that still has a handle (`keepInputs`).
   */
  weakUpstream = false;
  /**
   * @internal Told of every task submitted, while something follows this context's tasks
   * (`progress(context)` of @dtask/viz); unset otherwise, so it costs one property load.
   */
  onSubmit: ((task: DTask<unknown>) => void) | undefined = undefined;
  /**
   * @internal Told when processors' load may have changed (after a round of placements, and
   * when a task on a worker ends), while a plugin listens (`PluginHost.onLoadChange`).
   */
  onLoadChange: (() => void) | undefined = undefined;

  /** Adds (or replaces) the processor `proc`, run by `executor`. */
  addProcessor(proc: Processor, executor: Executor): ProcSlot {
    return addSlot(this, proc, executor);
  }

  /**
   * Stops giving `proc` new tasks; what it holds finishes. `reason` (why it is gone for good)
   * is named to tasks that can run nowhere else.
   */
  removeProcessor(proc: Processor, reason?: string): boolean {
    const slot = this.slotById.get(proc.id);
    if (slot !== undefined && reason !== undefined) slot.removedReason = reason;
    return removeSlot(this, proc);
  }

  /** The slot of a processor id, if it is in this context. */
  slotOf(id: string): ProcSlot | undefined {
    const slot = this.slotById.get(id);
    return slot?.removed ? undefined : slot;
  }

  /** See `TaskSink.submit` and `submitTask`. */
  submit(
    task: DTask<unknown>,
    extraDeps?: Iterable<unknown>,
    early = false,
    here = false,
    ahead = false,
  ): void {
    submitTask(this, task, extraDeps, early, here, ahead);
  }

  /** @internal Places ready tasks on idle workers now, while their spawner runs (`early`). */
  readonly placeEarly = (): void => {
    if (this.pumping) return;
    for (let n = this.ready.length; n > 0 && mayWakeIdle(this, this.wokeAtOnce); n--) {
      const task = this.ready.shift()!;
      if (task.state === TaskState.Ready) this.dispatch(task, true);
      this.flushWoke();
    }
  };

  /** @internal Idle processors sent work at once since this pass began (see `wakeNow`). */
  wokeAtOnce = 0;
  /** An idle worker got work: it starts now, not after the whole burst is placed. */
  private flushWoke(): void {
    if (this.woke !== undefined && wakeNow(this.wokeAtOnce++)) this.woke.executor.flush?.();
    this.woke = undefined;
  }

  // ---------------------------------------------------------------- the loop

  /**
   * Runs the loop outside any async context, so callbacks that synchronous tasks schedule do
   * not inherit the context of whoever happened to wake the scheduler. @internal
   */
  readonly pumpOutside = (): void => {
    outsideFrames(this.pump);
  };

  /** @internal A processor that was idle until the task being dispatched now (see `pump`). */
  woke: ProcSlot | undefined = undefined;

  /** @internal True while `pump` runs (a task placed early must not re-enter it). */
  pumping = false;

  private readonly pump = (): void => {
    this.scheduled = false;
    this.pumping = true;
    this.wokeAtOnce = 0;
    const start = performance.now();
    let n = 0;
    let task: DTask<unknown> | undefined;
    while ((task = this.ready.shift()) !== undefined) {
      if (task.state === TaskState.Ready) this.dispatch(task);
      if (this.woke !== undefined) this.flushWoke();
      // A slice gives each worker a batch worth a message: at least `SLICE_TASKS_PER_WORKER`
      // tasks per worker before it yields (with 32 worker processes on a loaded machine, 256
      // tasks per 8 ms slice went out as batches of 8, a message and a wake-up per 8 tasks).
      if (
        (++n & 255) === 0 &&
        n >= this.shippingSlots * SLICE_TASKS_PER_WORKER &&
        performance.now() - start > SLICE_MS
      ) {
        if (this.ready.length > 0 && !this.scheduled) {
          this.scheduled = true;
          setImmediate(this.pump);
        }
        this.pumping = false;
        return;
      }
    }
    this.pumping = false;
    queueSeconds(this);
    if (this.onLoadChange !== undefined) this.onLoadChange();
  };

  /** @internal Which processors a task may run on (kept for default-placed tasks). */
  readonly candidateSlots = new CandidateSlots();

  /** @internal Slots whose executors run tasks elsewhere (functions must travel there). */
  shippingSlots = 0;

  /** @internal The context's `localClosures` option (see `keptOnMainThread`). */
  localClosures: LocalClosures = 'warn';

  /** See `TaskSink.admit` and `admitFunction`. */
  admit(fn: unknown, options: TaskOptions): number {
    this.queueLimit.admit();
    return admitFunction(this, fn, options);
  }

  /** Forgets cached placement decisions; call when a processor's enablement changes. */
  invalidatePlacement(): void {
    this.candidateSlots.invalidate();
  }

  /** `early`: placed while its spawner still runs, so never on the calling thread (see `submit`). */
  private dispatch(task: DTask<unknown>, early = false): void {
    if (this.closing) {
      this.cancel(task, closedBeforeStart(task));
      return;
    }
    if (this.losses > 0 && waitForLostInputs(this, task)) return;
    let slot: ProcSlot;
    try {
      const candidates = candidatesOf(this, task);
      slot = candidates.length === 1 ? candidates[0] : chooseSlot(task, candidates, this.costs);
      if (typeof task.fn !== 'function') pinResultToFunctionChunk(task);
      if (task.options.inPlaceArgs !== undefined) {
        markMovedArgs(task, slot.proc, hereOf(this.slots));
        markWrittenInPlace(task);
      }
      if ((task.flags & TaskFlags.PieceArgs) !== 0 && waitForPieces(this, task, slot.proc)) return;
    } catch (error) {
      failTask(this, task, error);
      return;
    }
    if (slot.executor.inline && early) {
      this.ready.push(task); // runs in the pump, after its spawner has returned
      return;
    }
    if (slot.executor.inline) {
      // The calling thread: no capacity to respect, nothing to account for.
      task.proc = slot.proc;
      startTask(this, task, slot);
      return;
    }
    task.proc = slot.proc;
    task.estimate = this.costs.estimateRun(task.fn, task.args.length);
    slot.load += task.estimate;
    const nested = (task.flags & TaskFlags.Nested) !== 0; // its parent may be waiting for it
    if ((slot.backlog.length > 0 && !nested) || isFull(slot, task)) {
      // Stays Ready (not in the ready queue) until the processor has room. Tasks parked
      // earlier go first, so a stream of small tasks cannot starve a big one, unless the
      // `priority` option says otherwise; a nested task does not queue behind them.
      slot.backlog.pushRanked(task, priorityOf);
      return;
    }
    startTask(this, task, slot);
  }

  /**
   * @internal Longest chain of worker-held results kept recomputable from lineage before one
   * is copied to this thread and its lineage let go (faults/lineage.ts).
   */
  lineageDepth = DEFAULT_LINEAGE_DEPTH;

  /** @internal Workers lost so far; while 0, dispatch skips looking for lost inputs. */
  losses = 0;

  /** See `TaskOwner.fetchValue`. A task that returned a `Chunk` gives the chunk's value. */
  fetchValue(task: DTask<unknown>): Promise<unknown> {
    if (task.state === TaskState.Done && isChunk(task.value)) return task.value.fetch();
    return fetchRecomputing(this, task, (v) => takeHome(this, task, v, weakInputs(task.args)));
  }

  /** See `TaskOwner.fetchChunk`. A task that returned a `Chunk` gives that chunk. */
  fetchChunk(task: DTask<unknown>): Promise<unknown> {
    return fetchChunkOf(task);
  }

  /** See `TaskOwner.cancel` and `cancelTask`. */
  cancel(task: DTask<unknown>, reason?: unknown): boolean {
    return cancelTask(this, task, reason);
  }

  /** Tasks the scheduler holds now (plus `extra`), as roots for walking the graph. */
  liveTasks(extra?: DTask<unknown>): DTask<unknown>[] {
    return liveTasks(this, extra);
  }

  /** See `TaskOwner.guardWait`. */
  guardWait(task: DTask<unknown>): void {
    runGuards(task);
  }
}

import { isChunk } from '../chunk/chunk.js';
import type { StorageDevice } from '../chunk/storage-device.js';
import { loggingState } from '../log/index.js';
import type { Processor } from '../processor/processor.js';
import { type DTask, isDTask, taskExtra } from '../task/dtask.js';
import { outsideFrames } from '../task/frame.js';
import { IdTable } from '../task/id-table.js';
import type { TaskOptions } from '../task/options.js';
import type { RemoteResult } from '../task/remote-result.js';
import { TaskFlags, TaskState } from '../task/task-state.js';
import { runGuards } from '../task/wait-guards.js';
import { cancelTask, watchSignal } from './completion/cancel-task.js';
import { closedBeforeStart } from './completion/cancel-unstarted.js';
import { fetchChunkOf } from './completion/chunk-of-task.js';
import { failTask } from './completion/fail-task.js';
import { finishTask } from './completion/finish-task.js';
import { checkpoint, restoreOrRun } from './completion/restore-checkpoint.js';
import { addDependent, failTree } from './completion/settle.js';
import { DEVICE_FAILED, keepOnDevice } from './completion/store-on-device.js';
import { takeHome } from './completion/take-home.js';
import type { Executor } from './dispatch/executor.js';
import { resolveArgs } from './dispatch/resolve-args.js';
import { runHere } from './dispatch/run-here.js';
import { runInline } from './dispatch/run-inline.js';
import { sendAhead } from './dispatch/send-ahead.js';
import { isFull, mayWakeIdle, priorityOf, queueSeconds, wakeNow } from './dispatch/slot-queue.js';
import { takeInWhileSpawning } from './dispatch/take-in-while-spawning.js';
import { liveTasks } from './dynamic/dag-walk.js';
import { keepInputs, weakInputs } from './dynamic/weak-inputs.js';
import { DEFAULT_LINEAGE_DEPTH, noteLineage } from './faults/lineage.js';
import { fetchRecomputing, waitForLostInputs } from './faults/recompute.js';
import { tasksLost } from './faults/tasks-lost.js';
import { logSpawn, logStart } from './log-task-events.js';
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
import { restorePieces } from './placement/take-pieces.js';
import { waitForPieces } from './placement/wait-for-pieces.js';
import { pendingTaskOf } from './ready/pending-task-of.js';
import { QueueLimit } from './ready/queue-limit.js';
import { ReadyQueue } from './ready/ready-queue.js';
import type { SchedulerState } from './scheduler-state.js';
import { SchedulerStats } from './stats/scheduler-stats.js';
import { noteReady, noteRun } from './stats/task-timing.js';

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
  private scheduled = false;
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

  /**
   * Takes a task into the graph: links it to the tasks and pending chunks it takes as inputs
   * (plus `extraDeps`, which it waits for without receiving values) and queues it once they exist.
   * `early` (a task queue's `startEarly`): if it is ready now and a worker is idle, it starts now.
   */
  submit(task: DTask<unknown>, extraDeps?: Iterable<unknown>, early = false, here = false): void {
    if (task.state !== TaskState.Queued) return; // cancelled while held by a task queue
    task.state = TaskState.Pending;
    task.flags |= TaskFlags.Unfinished;
    this.queueLimit.unfinished++;
    if (this.onSubmit !== undefined) this.onSubmit(task);
    if (loggingState.enabled) extraDeps = logSpawn(task, extraDeps);
    let waiting = 0;
    let failed: DTask<unknown> | undefined;
    const o = task.options;
    let plain =
      typeof task.fn === 'function' &&
      o.scope === undefined &&
      o.computeScope === undefined &&
      o.resultScope === undefined &&
      o.inPlaceArgs === undefined;
    const args = task.args;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (typeof a !== 'object' || a === null) continue;
      let upstream: DTask<unknown> | undefined;
      if (isDTask(a)) {
        upstream = a;
        if (a.options.resultScope !== undefined) plain = false;
      } else if (isChunk(a)) {
        plain = false;
        if (a.handle.pieceFor !== undefined) task.flags |= TaskFlags.PieceArgs;
        upstream = pendingTaskOf(a);
      } else continue;
      const linked = upstream === undefined ? 0 : this.link(task, upstream);
      if (linked === 1) waiting++;
      else if (linked === -1) failed ??= upstream;
    }
    if (plain) task.flags |= TaskFlags.Plain;
    if (typeof task.fn === 'object' || o.syncdeps !== undefined || extraDeps !== undefined) {
      const more: unknown[] = [task.fn];
      if (o.syncdeps) more.push(...o.syncdeps);
      if (extraDeps) more.push(...extraDeps);
      for (const dep of more) {
        const upstream = isDTask(dep) ? dep : isChunk(dep) ? pendingTaskOf(dep) : undefined;
        const linked = upstream === undefined ? 0 : this.link(task, upstream);
        if (linked === 1) waiting++;
        else if (linked === -1) failed ??= upstream;
      }
    }
    const signal = task.options.signal;
    if (signal) watchSignal(this, task, signal);
    if (failed) {
      this.failFromUpstream(task, failed);
      return;
    }
    task.waiting = waiting;
    if (waiting === 0 && task.state === TaskState.Pending) {
      if (here && runHere(this, task)) return;
      this.makeReady(task, early);
    }
    if (early) takeInWhileSpawning(this);
  }

  /** @internal Makes `task` wait for `upstream`: 1 if it must wait, 0 if it exists, -1 if failed. */
  link(task: DTask<unknown>, upstream: DTask<unknown>): number {
    if (upstream === task) return 0;
    const state = upstream.state;
    if (state === TaskState.Done) return 0;
    if (state === TaskState.Failed) return -1;
    if (upstream.owner === this) addDependent(upstream, task);
    else upstream.onSettled(() => this.inputSettled(task, upstream));
    return 1;
  }

  private inputArrived(task: DTask<unknown>): void {
    if (task.state === TaskState.Pending && --task.waiting === 0) this.makeReady(task);
  }

  private inputSettled(task: DTask<unknown>, upstream: DTask<unknown>): void {
    if (task.state !== TaskState.Pending) return;
    if (upstream.state === TaskState.Failed) this.failFromUpstream(task, upstream);
    else if (--task.waiting === 0) this.makeReady(task);
  }

  /** @internal Fails `task` (and its dependents) because its input `upstream` failed. */
  failFromUpstream(task: DTask<unknown>, upstream: DTask<unknown>): void {
    failTree(task, upstream.value, (t) => finishTask(this, t), upstream);
  }

  private makeReady(task: DTask<unknown>, early = false): void {
    task.state = TaskState.Ready;
    // Most tasks are not timed: count them down here, without a call.
    if (this.learnInline || this.stats.countdown <= 1) noteReady(this, task);
    else this.stats.countdown--;
    this.ready.push(task);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.pumpOutside);
    }
    if (early && this.ready.length === 1 && mayWakeIdle(this, this.wokeAtOnce))
      outsideFrames(this.placeEarly);
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

  /** Idle processors sent work at once since this pass began (see `wakeNow`). */
  private wokeAtOnce = 0;
  /** An idle worker got work: it starts now, not after the whole burst is placed. */
  private flushWoke(): void {
    if (this.woke !== undefined && wakeNow(this.wokeAtOnce++)) this.woke.executor.flush?.();
    this.woke = undefined;
  }

  /**
   * Puts a task back to be placed again (its processor went away, or it was taken back). One
   * that was sent ahead may still lack inputs (being made on that worker, or placed again
   * with it): it waits for them first, as when it was spawned.
   */
  requeue(task: DTask<unknown>): void {
    if (task.state >= TaskState.Done) return;
    this.running.delete(task.id);
    task.proc = undefined;
    restorePieces(task);
    if ((task.flags & TaskFlags.SentAhead) !== 0) {
      task.flags &= ~TaskFlags.SentAhead;
      if (waitForLostInputs(this, task)) return;
    }
    this.makeReady(task);
  }

  // ---------------------------------------------------------------- the loop

  /**
   * Runs the loop outside any async context, so callbacks that synchronous tasks schedule do
   * not inherit the context of whoever happened to wake the scheduler.
   */
  private readonly pumpOutside = (): void => {
    outsideFrames(this.pump);
  };

  /** A processor that was idle until the task being dispatched now (see `pump`). */
  private woke: ProcSlot | undefined = undefined;

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
      if (task.options.inPlaceArgs !== undefined)
        markMovedArgs(task, slot.proc, hereOf(this.slots));
      if ((task.flags & TaskFlags.PieceArgs) !== 0 && waitForPieces(this, task, slot.proc)) return;
    } catch (error) {
      this.fail(task, error);
      return;
    }
    if (slot.executor.inline && early) {
      this.ready.push(task); // runs in the pump, after its spawner has returned
      return;
    }
    if (slot.executor.inline) {
      // The calling thread: no capacity to respect, nothing to account for.
      task.proc = slot.proc;
      this.start(task, slot);
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
    this.start(task, slot);
  }

  /** @internal Hands a placed task to its executor (its estimate is already in `slot.load`). */
  start(task: DTask<unknown>, slot: ProcSlot): void {
    task.state = TaskState.Running;
    if (!slot.executor.inline) {
      if (slot.inFlight === 0) this.woke = slot;
      task.flags |= TaskFlags.Counted;
      slot.inFlight += task.options.occupancy ?? 1;
      slot.sentLoad += task.estimate;
    }
    if (loggingState.enabled) logStart(task, slot.proc);
    if (typeof task.options.restore === 'function') restoreOrRun(this, task, slot);
    else this.run(task, slot);
  }

  /** @internal */
  run(task: DTask<unknown>, slot: ProcSlot): void {
    if (task.state !== TaskState.Running) return;
    if (slot.executor.inline) runInline(this, task, slot);
    else {
      this.running.set(task.id, task);
      slot.executor.run(task, slot.proc, this);
      if (task.dependents !== undefined && slot.executor.acceptsPending)
        sendAhead(this, task, slot);
    }
  }

  /** See `ExecutorSink.resolveArgs`. */
  resolveArgs(task: DTask<unknown>, proc: Processor): unknown[] | Promise<unknown[]> {
    return resolveArgs(this, task, proc);
  }

  /** See `ExecutorSink.complete`. */
  complete(task: DTask<unknown>, value: unknown, durationMs?: number): void {
    if (task.state !== TaskState.Running) return; // cancelled or lost meanwhile
    if (task.options.device !== undefined) {
      value = keepOnDevice(this, task, value);
      if (value === DEVICE_FAILED) return;
    }
    this.running.delete(task.id);
    task.value = value;
    task.state = TaskState.Done;
    if (durationMs !== undefined) {
      this.costs.recordRun(task.fn, task.args.length, durationMs);
      noteRun(this, task, durationMs);
    }
    this.afterRun(task);
    // A local result needs no lineage: let the inputs be collected (getDagIds still walks up
    // through their ids, or weak references once a handle was asked for).
    task.args = keepInputs(task, this.weakUpstream);
  }

  /** See `ExecutorSink.completeRemote`. */
  completeRemote(task: DTask<unknown>, handle: RemoteResult, durationMs?: number): void {
    if (task.state !== TaskState.Running) return;
    this.running.delete(task.id);
    task.value = handle;
    task.state = TaskState.Done;
    if (handle.bytes !== undefined) taskExtra(task).bytes = handle.bytes;
    if (durationMs !== undefined) {
      this.costs.recordRun(task.fn, task.args.length, durationMs);
      noteRun(this, task, durationMs);
    }
    noteLineage(this, task, handle);
    this.afterRun(task);
  }

  /** See `ExecutorSink.fail`. */
  fail(task: DTask<unknown>, error: unknown): void {
    failTask(this, task, error);
  }

  /**
   * @internal Longest chain of worker-held results kept recomputable from lineage before one
   * is copied to this thread and its lineage let go (faults/lineage.ts).
   */
  lineageDepth = DEFAULT_LINEAGE_DEPTH;

  /** @internal Workers lost so far; while 0, dispatch skips looking for lost inputs. */
  losses = 0;

  /** See `ExecutorSink.lost`. */
  lost(tasks: Iterable<DTask<unknown>>, reason: unknown, byUs = false): void {
    tasksLost(this, tasks, reason, byUs);
  }

  private afterRun(task: DTask<unknown>): void {
    if (task.options.checkpoint !== undefined && typeof task.options.checkpoint === 'function') {
      checkpoint(task);
    }
    const d = task.dependents;
    if (d !== undefined) {
      task.dependents = undefined;
      if (Array.isArray(d)) {
        for (let i = 0; i < d.length; i++) this.inputArrived(d[i]);
      } else this.inputArrived(d);
    }
    finishTask(this, task);
  }

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

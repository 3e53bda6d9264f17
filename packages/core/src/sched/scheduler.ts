import { Chunk, isChunk } from '../chunk/chunk.js';
import { CancelledError, InputLostError, TaskFunctionError } from '../errors/errors.js';
import { logEvent, loggingState, now } from '../log/index.js';
import { move } from '../processor/dispatch.js';
import { hasMoveRules } from '../processor/move-registry.js';
import type { Processor } from '../processor/processor.js';
import type { AbstractScope } from '../scope/index.js';
import { AnyScope } from '../scope/index.js';
import { type DTask, isDTask, type TaskOwner, taskExtra } from '../task/dtask.js';
import { callInFrame, frames } from '../task/frame.js';
import type { TaskOptions } from '../task/options.js';
import { TaskFlags, TaskState } from '../task/task-state.js';
import { checkFunctionTravel } from '../worker/function-travel.js';
import { addDependent, failTree, forEachDependent, notifyListeners } from './completion/settle.js';
import { type Executor, type ExecutorSink, RemoteResult } from './dispatch/executor.js';
import { runGuards } from './dynamic/wait-guards.js';
import { recoverLostTasks } from './faults/worker-lost.js';
import {
  allowedSlots,
  pinResultToFunctionChunk,
  taskScope,
} from './placement/allowed-processors.js';
import { chooseSlot } from './placement/choose-slot.js';
import { CostModel } from './placement/cost-model.js';
import { ProcSlot } from './placement/proc-slot.js';
import { ReadyQueue } from './ready/ready-queue.js';

/** Longest stretch (ms) the scheduler runs tasks before letting I/O and timers in. */
const SLICE_MS = 8;
/** Estimated milliseconds of work to keep queued on each worker (see `isFull`). */
const AHEAD_MS = 2;
const NO_ARGS: unknown[] = [];
const ANY = new AnyScope();

/**
 * The scheduler of one `Context`: receives submitted tasks, tracks their dependencies, places
 * each ready task on the processor where it should finish first, hands it to that processor's
 * executor, and settles results and failures. Hot state is the task objects themselves and a
 * ring buffer; there is no per-task closure or promise unless a caller awaits a task.
 */
export class Scheduler implements TaskOwner, ExecutorSink {
  /** Learned run times and bandwidths. */
  readonly costs = new CostModel();
  /** Compute processors of the context, in order of addition. */
  slots: ProcSlot[] = [];
  private readonly ready = new ReadyQueue<DTask<unknown>>();
  private readonly slotById = new Map<string, ProcSlot>();
  /** Tasks handed to a non-inline executor or awaiting a promise, for cancel/halt/getDagIds. */
  readonly running = new Set<DTask<unknown>>();
  private scheduled = false;
  /** Whether to time inline tasks (only useful once there is a choice of processor). */
  private learnInline = false;

  // ---------------------------------------------------------------- processors

  /** Adds (or replaces) the processor `proc`, run by `executor`. */
  addProcessor(proc: Processor, executor: Executor): ProcSlot {
    const slot = new ProcSlot(proc, executor);
    const old = this.slotById.get(proc.id);
    if (old && !old.removed) this.slots[this.slots.indexOf(old)] = slot;
    else this.slots.push(slot);
    if (old) {
      // Tasks still running there (also after rmProcs) release into the new slot; parked
      // ones move over.
      slot.inFlight = old.inFlight;
      slot.load = old.load;
      slot.sentLoad = old.sentLoad;
      for (const t of old.backlog.drain()) slot.backlog.push(t);
    }
    this.slotById.set(proc.id, slot);
    this.learnInline = this.slots.filter((s) => !s.removed).length > 1;
    this.defaultSlots = undefined;
    this.shippingSlots = this.slots.filter((s) => s.executor.shipsFunctions).length;
    return slot;
  }

  /** Stops giving `proc` new tasks; what it holds finishes. */
  removeProcessor(proc: Processor): boolean {
    const slot = this.slotById.get(proc.id);
    if (!slot || slot.removed) return false;
    slot.removed = true;
    this.slots = this.slots.filter((s) => s !== slot);
    // Kept in slotById so that the tasks it still runs release it and can be cancelled.
    this.learnInline = this.slots.length > 1;
    this.defaultSlots = undefined;
    this.shippingSlots = this.slots.filter((s) => s.executor.shipsFunctions).length;
    // Tasks parked for capacity there go back to placement.
    for (const t of slot.backlog.drain()) this.requeue(t);
    return true;
  }

  /** The slot of a processor id, if it is in this context. */
  slotOf(id: string): ProcSlot | undefined {
    const slot = this.slotById.get(id);
    return slot?.removed ? undefined : slot;
  }

  // ---------------------------------------------------------------- submission

  /**
   * Takes a task into the graph: links it to the tasks and pending chunks it takes as inputs
   * (plus `extraDeps`, which it waits for without receiving values) and queues it once they exist.
   */
  submit(task: DTask<unknown>, extraDeps?: Iterable<unknown>): void {
    if (task.state !== TaskState.Queued) return; // cancelled while held by a task queue
    task.state = TaskState.Pending;
    if (loggingState.enabled) {
      logEvent({ kind: 'spawn', time: now(), task: task.id, name: task.options.name, worker: 1 });
    }
    let waiting = 0;
    let failed: DTask<unknown> | undefined;
    const o = task.options;
    let plain =
      typeof task.fn === 'function' &&
      o.scope === undefined &&
      o.computeScope === undefined &&
      o.resultScope === undefined;
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
    if (signal) this.watchSignal(task, signal);
    if (failed) {
      this.failFromUpstream(task, failed);
      return;
    }
    task.waiting = waiting;
    if (waiting === 0 && task.state === TaskState.Pending) this.makeReady(task);
  }

  /** Makes `task` wait for `upstream`: 1 if it must wait, 0 if the input exists, -1 if it failed. */
  private link(task: DTask<unknown>, upstream: DTask<unknown>): number {
    if (upstream === task) return 0;
    const state = upstream.state;
    if (state === TaskState.Done) return 0;
    if (state === TaskState.Failed) return -1;
    if (upstream.owner === this) addDependent(upstream, task);
    else upstream.onSettled(() => this.inputSettled(task, upstream));
    return 1;
  }

  private watchSignal(task: DTask<unknown>, signal: AbortSignal): void {
    if (signal.aborted) {
      this.cancel(task, signal.reason);
      return;
    }
    const onAbort = (): void => {
      this.cancel(task, signal.reason);
    };
    signal.addEventListener('abort', onAbort, { once: true });
    taskExtra(task).unlisten = () => signal.removeEventListener('abort', onAbort);
  }

  private inputArrived(task: DTask<unknown>): void {
    if (task.state === TaskState.Pending && --task.waiting === 0) this.makeReady(task);
  }

  private inputSettled(task: DTask<unknown>, upstream: DTask<unknown>): void {
    if (task.state !== TaskState.Pending) return;
    if (upstream.state === TaskState.Failed) this.failFromUpstream(task, upstream);
    else if (--task.waiting === 0) this.makeReady(task);
  }

  private failFromUpstream(task: DTask<unknown>, upstream: DTask<unknown>): void {
    failTree(task, upstream.value, (t) => this.finished(t), upstream);
  }

  private makeReady(task: DTask<unknown>): void {
    task.state = TaskState.Ready;
    this.ready.push(task);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.pumpOutside);
    }
  }

  /** Puts a task back to be placed again (its processor went away). */
  requeue(task: DTask<unknown>): void {
    if (task.state >= TaskState.Done) return;
    this.running.delete(task);
    task.proc = undefined;
    this.makeReady(task);
  }

  // ---------------------------------------------------------------- the loop

  /**
   * Runs the loop outside any async context, so callbacks that synchronous tasks schedule do
   * not inherit the context of whoever happened to wake the scheduler.
   */
  private readonly pumpOutside = (): void => {
    frames.exit(this.pump);
  };

  private readonly pump = (): void => {
    this.scheduled = false;
    const start = performance.now();
    let n = 0;
    let task: DTask<unknown> | undefined;
    while ((task = this.ready.shift()) !== undefined) {
      if (task.state === TaskState.Ready) this.dispatch(task);
      if ((++n & 255) === 0 && performance.now() - start > SLICE_MS) {
        if (this.ready.length > 0 && !this.scheduled) {
          this.scheduled = true;
          setImmediate(this.pump);
        }
        return;
      }
    }
  };

  /**
   * Processors a default-placed task may use, while they do not depend on the task (every
   * processor is a thread); null when they do. Recomputed after processors change.
   */
  private defaultSlots: ProcSlot[] | null | undefined;

  /** Slots whose executors run tasks elsewhere (functions must travel there). */
  private shippingSlots = 0;

  /**
   * See `TaskSink.admit`: a function that cannot travel (it closes over local variables, or is
   * native or bound) runs on this thread; if its scope excludes this thread, `spawn` throws
   * `TaskFunctionError` naming what it closes over and what to do.
   */
  admit(fn: unknown, options: TaskOptions): number {
    if (this.shippingSlots === 0 || typeof fn !== 'function') return 0;
    const verdict = checkFunctionTravel(fn);
    if (verdict.ok) return 0;
    const local = this.slots.find((s) => s.executor.inline);
    const scope = options.computeScope ?? options.scope;
    const excluded = (s: AbstractScope | undefined) =>
      s !== undefined && !!local && !s.contains(local.proc);
    if (!local || excluded(scope) || excluded(options.resultScope)) {
      throw new TaskFunctionError(
        `${verdict.message} Its scope (${scope ?? options.resultScope ?? 'default'}) does not include the main thread, where it could run as it is.`,
      );
    }
    return TaskFlags.LocalOnly;
  }

  /** Forgets cached placement decisions; call when a processor's enablement changes. */
  invalidatePlacement(): void {
    this.defaultSlots = undefined;
  }

  private candidates(task: DTask<unknown>): ProcSlot[] {
    if ((task.flags & TaskFlags.LocalOnly) !== 0) {
      const local = this.slots.find((s) => s.executor.inline);
      if (local) return [local];
      throw new TaskFunctionError(
        `Task #${task.id} must run on the thread that defined its function, which is no longer in this context`,
      );
    }
    if ((task.flags & TaskFlags.Plain) !== 0) {
      if (this.defaultSlots === undefined) {
        this.defaultSlots = this.slots.every((s) => s.proc.kind === 'thread')
          ? allowedSlots(task, taskScope(task), this.slots)
          : null;
      }
      if (this.defaultSlots !== null) return this.defaultSlots;
    }
    return allowedSlots(task, taskScope(task), this.slots);
  }

  private dispatch(task: DTask<unknown>): void {
    if (this.losses > 0 && this.waitForLostInputs(task)) return;
    let slot: ProcSlot;
    try {
      const candidates = this.candidates(task);
      slot = candidates.length === 1 ? candidates[0] : chooseSlot(task, candidates, this.costs);
      if (typeof task.fn !== 'function') pinResultToFunctionChunk(task);
    } catch (error) {
      this.fail(task, error);
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
    if (slot.backlog.length > 0 || this.isFull(slot, task)) {
      // Stays Ready (not in the ready queue) until the processor has room. Tasks parked
      // earlier go first, so a stream of small tasks cannot starve a big one.
      slot.backlog.push(task);
      return;
    }
    this.start(task, slot);
  }

  /**
   * Whether `slot`'s executor has enough queued: its capacity, or about `AHEAD_MS` of estimated
   * work (deep queues for tiny tasks, so a worker never waits for a message; shallow ones for
   * long tasks, so the rest can still go to whichever processor frees up first).
   */
  private isFull(slot: ProcSlot, task: DTask<unknown>): boolean {
    if (slot.inFlight === 0) return false;
    const occupancy = task.options.occupancy ?? 1;
    if (slot.inFlight + occupancy > slot.executor.capacity) return true;
    // A task spawned from inside a task may be what its parent, running there, waits for:
    // the queue-ahead budget (which counts the parent's waiting as work) must not hold it.
    return (task.flags & TaskFlags.Nested) === 0 && slot.sentLoad > AHEAD_MS;
  }

  /** Hands a placed task to its executor (its estimate is already in `slot.load`). */
  private start(task: DTask<unknown>, slot: ProcSlot): void {
    task.state = TaskState.Running;
    if (!slot.executor.inline) {
      task.flags |= TaskFlags.Counted;
      slot.inFlight += task.options.occupancy ?? 1;
      slot.sentLoad += task.estimate;
    }
    if (loggingState.enabled) {
      logEvent({
        kind: 'start',
        time: now(),
        task: task.id,
        name: task.options.name,
        processor: slot.proc.id,
        worker: slot.proc.worker,
      });
    }
    if (typeof task.options.restore === 'function') this.restoreOrRun(task, slot);
    else this.run(task, slot);
  }

  private run(task: DTask<unknown>, slot: ProcSlot): void {
    if (task.state !== TaskState.Running) return;
    if (slot.executor.inline) this.runInline(task, slot);
    else {
      this.running.add(task);
      slot.executor.run(task, slot.proc, this);
      if (task.dependents !== undefined && slot.executor.acceptsPending) this.sendAhead(task, slot);
    }
  }

  /**
   * Places the dependents of `root` (just sent to `slot`'s worker) on the same worker at once
   * when every input they wait for is being made there: the worker starts each the moment its
   * inputs exist, so a chain costs no round trip per task (local successor execution).
   */
  private sendAhead(root: DTask<unknown>, slot: ProcSlot): void {
    // Only inputs sent in this same cascade qualify: they travel in the same batch, so the
    // worker learns of their consumers before it runs them and keeps even small results.
    const cascade = new Set<DTask<unknown>>([root]);
    const stack = [root];
    while (stack.length > 0) {
      const upstream = stack.pop()!;
      const d = upstream.dependents;
      if (d === undefined) continue;
      const list = Array.isArray(d) ? d : [d];
      for (const next of list) {
        if (!this.canSendAhead(next, slot, cascade)) continue;
        cascade.add(next);
        next.flags |= TaskFlags.SentAhead | TaskFlags.Counted;
        next.proc = slot.proc;
        next.state = TaskState.Running;
        next.estimate = this.costs.estimateRun(next.fn, next.args.length);
        slot.inFlight += next.options.occupancy ?? 1;
        slot.load += next.estimate;
        slot.sentLoad += next.estimate;
        this.running.add(next);
        slot.executor.run(next, slot.proc, this);
        stack.push(next);
      }
    }
  }

  private canSendAhead(
    task: DTask<unknown>,
    slot: ProcSlot,
    cascade: Set<DTask<unknown>>,
  ): boolean {
    if (task.state !== TaskState.Pending || typeof task.fn !== 'function') return false;
    const o = task.options;
    if ((task.flags & TaskFlags.LocalOnly) !== 0 || o.syncdeps !== undefined) return false;
    if (o.signal !== undefined || o.restore !== undefined || o.meta === true) return false;
    for (const a of task.args) {
      if (typeof a !== 'object' || a === null) continue;
      if (!isDTask(a)) {
        if (isChunk(a)) return false;
        continue;
      }
      if (a.state === TaskState.Done) {
        // A result lost with its worker must be recomputed first (see waitForLostInputs).
        if (a.value instanceof RemoteResult && a.value.isLost()) return false;
        continue;
      }
      if (a.state !== TaskState.Running || a.proc !== slot.proc || !cascade.has(a)) return false;
    }
    try {
      return this.candidates(task).includes(slot);
    } catch {
      return false;
    }
  }

  /** Dagger's `restore`: a saved result (anything but undefined) skips running the task. */
  private restoreOrRun(task: DTask<unknown>, slot: ProcSlot): void {
    const settle = (saved: unknown): void => {
      if (saved === undefined) this.run(task, slot);
      else this.complete(task, saved);
    };
    let saved: unknown;
    try {
      saved = (task.options.restore as (t: unknown) => unknown)(task);
    } catch (error) {
      this.fail(task, error);
      return;
    }
    if (!isThenable(saved)) {
      settle(saved);
      return;
    }
    this.running.add(task);
    Promise.resolve(saved).then(settle, (error) => this.fail(task, error));
  }

  private runInline(task: DTask<unknown>, slot: ProcSlot): void {
    const args = this.resolveArgs(task, slot.proc);
    if (!Array.isArray(args)) {
      this.running.add(task);
      args.then(
        (a) => this.callInline(task, a),
        (error) =>
          InputLostError.isInstance(error)
            ? this.lost([task], error, true)
            : this.fail(task, error),
      );
      return;
    }
    this.callInline(task, args);
  }

  private callInline(task: DTask<unknown>, args: unknown[]): void {
    if (task.state !== TaskState.Running) return;
    const timed = this.learnInline;
    const t0 = timed ? performance.now() : 0;
    let result: unknown;
    try {
      result = callInFrame(task, task.fn as Function, args);
    } catch (error) {
      this.fail(task, error);
      return;
    }
    if (isThenable(result)) {
      this.running.add(task);
      (result as PromiseLike<unknown>).then(
        (v) => this.complete(task, v, timed ? performance.now() - t0 : undefined),
        (e) => this.fail(task, e),
      );
      return;
    }
    this.complete(task, result, timed ? performance.now() - t0 : undefined);
  }

  /**
   * Argument values for `task` on `proc`: task results and chunks are replaced by their
   * values (or by chunks under `meta: true`), moved with `move()` when a rule applies. Returns
   * an array at once when everything is local, else a promise.
   */
  resolveArgs(task: DTask<unknown>, proc: Processor): unknown[] | Promise<unknown[]> {
    const args = task.args;
    const meta = task.options.meta === true;
    // Copied on the first replacement: the task keeps its inputs (its lineage) until it ends.
    let out = args;
    let waits: Promise<unknown>[] | undefined;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (typeof a !== 'object' || a === null) continue;
      let value: unknown | Promise<unknown>;
      let from: Processor | undefined;
      if (isDTask(a)) {
        const v = a.value;
        if (meta) value = this.fetchChunk(a);
        else if (v instanceof RemoteResult) {
          from = v.processor;
          value = v
            .fetch()
            .catch((error) =>
              Promise.reject(
                v.isLost()
                  ? new InputLostError(`Input ${i} was lost with its worker`, { cause: error })
                  : error,
              ),
            );
        } else {
          from = a.proc;
          value = v;
        }
      } else if (isChunk(a) && !meta) {
        from = a.processor;
        value = a.fetch();
      } else continue;
      if (out === args) out = args.slice();
      if (value instanceof Promise) {
        const target = out;
        (waits ??= []).push(value.then((x) => (target[i] = from ? this.moved(from, proc, x) : x)));
      } else out[i] = from ? this.moved(from, proc, value) : value;
    }
    if (typeof task.fn === 'object' && isChunk(task.fn)) {
      (waits ??= []).push(task.fn.fetch().then((f) => (task.fn = f)));
    }
    if (waits === undefined) return out;
    const ready = out;
    return Promise.all(waits).then(() => ready);
  }

  private moved(from: Processor, to: Processor, value: unknown): unknown {
    return hasMoveRules() ? move(from, to, value) : value;
  }

  // ---------------------------------------------------------------- completion

  /** See `ExecutorSink.complete`. */
  complete(task: DTask<unknown>, value: unknown, durationMs?: number): void {
    if (task.state !== TaskState.Running) return; // cancelled or lost meanwhile
    this.running.delete(task);
    task.value = value;
    task.state = TaskState.Done;
    if (durationMs !== undefined) this.costs.recordRun(task.fn, task.args.length, durationMs);
    this.afterRun(task);
    // A local result needs no lineage: let the inputs be collected.
    task.args = NO_ARGS;
  }

  /** See `ExecutorSink.completeRemote`. */
  completeRemote(task: DTask<unknown>, handle: RemoteResult, durationMs?: number): void {
    if (task.state !== TaskState.Running) return;
    this.running.delete(task);
    task.value = handle;
    task.state = TaskState.Done;
    if (handle.bytes !== undefined) taskExtra(task).bytes = handle.bytes;
    if (durationMs !== undefined) this.costs.recordRun(task.fn, task.args.length, durationMs);
    this.afterRun(task);
  }

  /** See `ExecutorSink.fail`. */
  fail(task: DTask<unknown>, error: unknown): void {
    if (task.state >= TaskState.Done) return;
    const wasRunning = task.state === TaskState.Running;
    this.running.delete(task);
    failTree(task, error, (t) => {
      // Dependents sent ahead wait on a worker for an input that will never come: stop them.
      if (t !== task && (t.flags & TaskFlags.SentAhead) !== 0) {
        this.running.delete(t);
        if (t.proc) this.slotById.get(t.proc.id)?.executor.cancel?.(t);
      }
      this.finished(t);
    });
  }

  /** Workers lost so far; while 0, dispatch skips looking for lost inputs. */
  private losses = 0;

  /**
   * Recomputes the inputs of `task` that were held by a worker that died (from their lineage:
   * their function and arguments, kept for results held remotely) and makes `task` wait for
   * them. Returns true when it must wait.
   */
  private waitForLostInputs(task: DTask<unknown>): boolean {
    const args = task.args;
    let waiting = 0;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (!isDTask(a)) continue;
      this.resurrect(a);
      if (a.state < TaskState.Done && this.link(task, a) === 1) waiting++;
    }
    if (waiting === 0) return false;
    task.state = TaskState.Pending;
    task.waiting = waiting;
    return true;
  }

  /** Puts a finished task whose remote result was lost back into the graph, to run again. */
  private resurrect(task: DTask<unknown>): void {
    const v = task.value;
    if (task.state !== TaskState.Done || !(v instanceof RemoteResult) || !v.isLost()) return;
    task.value = undefined;
    task.state = TaskState.Queued;
    task.proc = undefined;
    task.flags = 0;
    if (task.extra) task.extra.bytes = undefined;
    this.submit(task);
  }

  /** See `ExecutorSink.lost`. */
  lost(tasks: Iterable<DTask<unknown>>, reason: unknown, byUs = false): void {
    this.losses++;
    const list = [...tasks];
    for (const t of list) {
      if ((t.flags & TaskFlags.Counted) === 0) continue;
      t.flags &= ~TaskFlags.Counted;
      this.releaseSlot(t);
    }
    recoverLostTasks(this, list, reason, byUs);
  }

  private afterRun(task: DTask<unknown>): void {
    if (task.options.checkpoint !== undefined && typeof task.options.checkpoint === 'function') {
      this.checkpoint(task);
    }
    const d = task.dependents;
    if (d !== undefined) {
      task.dependents = undefined;
      if (Array.isArray(d)) {
        for (let i = 0; i < d.length; i++) this.inputArrived(d[i]);
      } else this.inputArrived(d);
    }
    this.finished(task);
  }

  private checkpoint(task: DTask<unknown>): void {
    try {
      const r = (task.options.checkpoint as (t: unknown, v: unknown) => unknown)(task, task.value);
      if (isThenable(r))
        Promise.resolve(r).catch((e) =>
          process.emitWarning(`dtask: checkpoint of task #${task.id} failed: ${e}`),
        );
    } catch (e) {
      process.emitWarning(`dtask: checkpoint of task #${task.id} failed: ${e}`);
    }
  }

  /** Bookkeeping once `task` is settled: frees its slot share and wakes waiters. */
  private finished(task: DTask<unknown>): void {
    const extra = task.extra;
    if (extra?.unlisten) {
      extra.unlisten();
      extra.unlisten = undefined;
    }
    if ((task.flags & TaskFlags.Counted) !== 0) {
      task.flags &= ~TaskFlags.Counted;
      this.releaseSlot(task);
    }
    if (loggingState.enabled) {
      logEvent({
        kind: task.state === TaskState.Done ? 'finish' : 'fail',
        time: now(),
        task: task.id,
        name: task.options.name,
        processor: task.proc?.id,
        worker: task.proc?.worker,
      });
    }
    notifyListeners(task);
  }

  private releaseSlot(task: DTask<unknown>): void {
    const slot = this.slotById.get(task.proc!.id);
    if (!slot) return;
    slot.inFlight -= task.options.occupancy ?? 1;
    slot.load = Math.max(0, slot.load - task.estimate);
    slot.sentLoad = Math.max(0, slot.sentLoad - task.estimate);
    if (slot.removed) return;
    this.refill(slot);
    if (slot.backlog.length === 0 && slot.inFlight === 0) this.steal(slot);
  }

  /** Starts parked tasks while `slot` has room. */
  private refill(slot: ProcSlot): void {
    let next: DTask<unknown> | undefined;
    while ((next = slot.backlog.peek()) !== undefined) {
      if (next.state !== TaskState.Ready) {
        slot.backlog.shift(); // cancelled while parked
        continue;
      }
      if (this.isFull(slot, next)) break;
      slot.backlog.shift();
      this.start(next, slot);
    }
  }

  /**
   * Work stealing: an idle processor takes tasks parked on the busiest other processor, when
   * their scope allows it to run them.
   */
  private steal(slot: ProcSlot): void {
    let victim: ProcSlot | undefined;
    for (const other of this.slots) {
      if (other !== slot && other.backlog.length > (victim?.backlog.length ?? 0)) victim = other;
    }
    if (victim === undefined) return;
    const take = Math.ceil(victim.backlog.length / 2);
    const kept: DTask<unknown>[] = [];
    for (let i = 0; i < take; i++) {
      const task = victim.backlog.shift()!;
      if (task.state !== TaskState.Ready) continue;
      let allowed = false;
      try {
        allowed = this.candidates(task).includes(slot);
      } catch {
        allowed = false;
      }
      if (!allowed) {
        kept.push(task);
        continue;
      }
      victim.load = Math.max(0, victim.load - task.estimate);
      task.proc = slot.proc;
      slot.load += task.estimate;
      slot.backlog.push(task);
    }
    // Tasks this processor may not run go back to the front of their queue, in order.
    if (kept.length > 0) {
      const rest = victim.backlog.drain();
      for (const t of [...kept, ...rest]) victim.backlog.push(t);
    }
    this.refill(slot);
  }

  // ---------------------------------------------------------------- TaskOwner

  /** See `TaskOwner.fetchValue`. */
  fetchValue(task: DTask<unknown>): Promise<unknown> {
    if (task.state === TaskState.Failed) return Promise.reject(task.value);
    const v = task.value;
    if (!(v instanceof RemoteResult)) return Promise.resolve(v);
    const recompute = (): Promise<unknown> => {
      this.losses++;
      this.resurrect(task);
      return task.fetch();
    };
    if (v.isLost()) return recompute();
    return v.fetch().catch((error) => (v.isLost() ? recompute() : Promise.reject(error)));
  }

  /** See `TaskOwner.fetchChunk`. */
  fetchChunk(task: DTask<unknown>): Promise<unknown> {
    if (task.state === TaskState.Failed) return Promise.reject(task.value);
    return Promise.resolve(chunkOfTask(task));
  }

  /** See `TaskOwner.cancel`. */
  cancel(task: DTask<unknown>, reason?: unknown): boolean {
    if (task.state >= TaskState.Done) return false;
    const error =
      reason instanceof CancelledError || CancelledError.isInstance(reason)
        ? reason
        : new CancelledError(
            `Task #${task.id}${task.name ? ` '${task.name}'` : ''} was cancelled`,
            reason === undefined ? undefined : { cause: reason },
          );
    const wasRunning = task.state === TaskState.Running;
    const abort = task.extra?.abort;
    if (abort && !abort.signal.aborted) abort.abort(error);
    else if (wasRunning) taskExtra(task).abort = abortedController(error);
    if (wasRunning) {
      const slot = task.proc && this.slotById.get(task.proc.id);
      slot?.executor.cancel?.(task);
    }
    this.fail(task, error);
    return true;
  }

  /** Tasks the scheduler holds now (plus `extra`), as roots for walking the graph. */
  liveTasks(extra?: DTask<unknown>): DTask<unknown>[] {
    const roots: DTask<unknown>[] = [...this.ready, ...this.running];
    for (const slot of this.slots) roots.push(...slot.backlog);
    if (extra) roots.push(extra);
    return roots.filter((t) => t.state < TaskState.Done || t === extra);
  }

  /** See `TaskOwner.guardWait`. */
  guardWait(task: DTask<unknown>): void {
    runGuards(task);
  }
}

function abortedController(reason: unknown): AbortController {
  const c = new AbortController();
  c.abort(reason);
  return c;
}

/** The task still producing a chunk (from `mutable`), if it has not finished. */
function pendingTaskOf(chunk: Chunk<unknown>): DTask<unknown> | undefined {
  const p = chunk.handle.pending;
  return isDTask(p) && p.state < TaskState.Done ? p : undefined;
}

/** True for promises and other thenables. */
export function isThenable(x: unknown): x is PromiseLike<unknown> {
  return (
    x !== null &&
    (typeof x === 'object' || typeof x === 'function') &&
    typeof (x as PromiseLike<unknown>).then === 'function'
  );
}

/** A `Chunk` for a finished task's result, scoped by its result scope. */
export function chunkOfTask(task: DTask<unknown>): Chunk<unknown> {
  const v = task.value;
  const proc = task.proc!;
  if (v instanceof RemoteResult) {
    return new Chunk(
      { processor: v.processor, fetch: v.fetch, bytes: v.bytes },
      task.options.resultScope ?? ANY,
    );
  }
  return new Chunk(
    { processor: proc, fetch: () => Promise.resolve(v) },
    task.options.resultScope ?? ANY,
  );
}

import { isChunk } from '../chunk/chunk.js';
import { CancelledError } from '../errors/errors.js';
import { DTaskFailedError } from '../errors/task-failed-error.js';
import { loggingState } from '../log/event-log.js';
import type { Processor } from '../processor/processor.js';
import { type DTask, isDTask, taskExtra } from '../task/dtask.js';
import { asyncRunSettled, callInFrame, type FrameTask } from '../task/frame.js';
import { isThenable } from '../task/is-thenable.js';
import { notifyListeners } from '../task/notify-listeners.js';
import { TaskFlags, TaskState } from '../task/task-state.js';
import { mayPlaceHere } from './local-placement.js';
import type { OwnedPlacement } from './owned-placement.js';
import { OwnedTask } from './owned-task.js';
import type { ProxyOwner } from './proxy-owner.js';
import { YIELD_AFTER_MS } from './turn-share.js';

/**
 * Work a runtime keeps queued for itself (ms: the tasks waiting here, and the new one, times
 * the new task's function's shortest synchronous run here): a nested task that would take the
 * queue past this goes to the scheduler instead, which can place it on an idle member (Ray's
 * spillback). One turn's worth: a tree of light tasks stays here, a fan-out of heavy ones
 * spreads.
 */
export const KEEP_QUEUED_MS = YIELD_AFTER_MS;

/** Expected run (ms) of a function that has not run here yet: 16 such tasks fill the queue. */
const UNKNOWN_MS = 0.25;

/** How often (ms) the scheduler hears how many tasks its workers placed themselves. */
const REPORT_EVERY_MS = 50;

const NO_ARGS: unknown[] = [];

/** What `OwnedTasks` needs from its runtime. */
export interface OwnedHooks {
  /** A task placed here begins its synchronous run, on behalf of the scheduler's task `agent`. */
  enter(agent: number): void;
  /** That synchronous run has returned (or thrown). */
  leave(): void;
  /** Tells the scheduler how many tasks placed here settled since the last report. */
  report(finished: number, failed: number): void;
}

/**
 * Nested tasks placed by the worker runtime whose task spawned them (Ray's ownership model):
 * when a task spawned on this thread may run here (`mayPlaceHere`: its scope contains this
 * processor, its arguments are plain values or tasks placed here) and the local queue is short,
 * this runtime runs it, between its other work, and owns it: the handle holds the state, the
 * value and the listeners, and `fetch`/`wait`/`cancel` are answered here. A tree of nested
 * spawns then costs the scheduler nothing per task; it hears counts every `REPORT_EVERY_MS`.
 * While logging is on, nothing is placed here: the scheduler sees and logs every task.
 *
 * Lineage and faults need nothing more: such a task is only ever consumed on this thread, by
 * its ancestors placed here and ultimately by a task the scheduler placed (its `agent`). If
 * this worker is lost, that task is lost with it and the scheduler runs it again, which
 * spawns the whole subtree again. A task placed elsewhere that takes one of these as an
 * argument is sent once it has finished, with the value (`ProxyOwner`).
 */
export class OwnedTasks implements OwnedPlacement {
  /**
   * Tasks whose inputs all exist; the last is the next to run: the most recently readied runs
   * first (depth-first, as the owner in a work-stealing scheduler works), so the queue of a
   * tree of nested spawns stays about as long as its depth times its fan-out, not its widest
   * level.
   */
  private ready: OwnedTask[] = [];
  /** Tasks placed here that have not started. */
  private queued = 0;
  /**
   * Each function's shortest synchronous run here (ms) after its first: a low estimate, which
   * neither a cold first run nor a thread descheduled by a busy machine inflates.
   */
  private readonly costs = new WeakMap<Function, number>();
  private scheduled = false;
  private finished = 0;
  private failed = 0;
  private reportTimer: ReturnType<typeof setTimeout> | undefined;
  private closed = false;

  constructor(
    private readonly processor: Processor,
    private readonly owner: ProxyOwner,
    private readonly hooks: OwnedHooks,
  ) {}

  /**
   * Places `task` (spawned inside `parent`, on this thread) here if it may run here and the
   * queue has room; false leaves it to the scheduler.
   */
  take(task: DTask<unknown>, parent: FrameTask | undefined): boolean {
    // While logging, every task goes through the scheduler, which logs its spawn, start, run
    // and finish as the views expect.
    if (this.closed || loggingState.enabled) return false;
    if (this.queued > 0) {
      const estimate = this.costs.get(task.fn as Function) ?? UNKNOWN_MS;
      if ((this.queued + 1) * estimate > KEEP_QUEUED_MS) return false;
    }
    if (!mayPlaceHere(task, this.processor, this.owner)) return false;
    const agent = parent instanceof OwnedTask ? parent.agent : (parent?.id ?? 0);
    const t = new OwnedTask(task, agent, this.owner, this.processor);
    task.flags |= TaskFlags.Owned;
    task.state = TaskState.Running;
    task.proc = this.processor;
    this.queued++;
    const args = task.args;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (!isDTask(a) || a.state >= TaskState.Done) continue;
      t.missing++;
      a.onSettled(() => {
        if (--t.missing === 0) this.enqueue(t);
      });
    }
    if (t.missing === 0) this.enqueue(t);
    return true;
  }

  /** The value of task placed here (the very object it returned), once it has one. */
  fetchValue(task: DTask<unknown>): Promise<unknown> {
    if (task.state >= TaskState.Done) return settledValue(task);
    return new Promise<void>((resolve) => task.onSettled(resolve)).then(() => settledValue(task));
  }

  /** Resolves once `task` (placed here) has finished, whatever its outcome. */
  wait(task: DTask<unknown>): Promise<void> {
    if (task.state >= TaskState.Done) return Promise.resolve();
    return new Promise<void>((resolve) => task.onSettled(resolve));
  }

  /**
   * Cancels `task` (placed here): it fails with `CancelledError` at once, and its abort signal
   * fires if it is running; false once it has finished.
   */
  cancel(task: DTask<unknown>, reason?: unknown): boolean {
    if (task.state >= TaskState.Done) return false;
    const error = CancelledError.isInstance(reason)
      ? reason
      : new CancelledError(
          `Task #${task.id}${task.name ? ` '${task.name}'` : ''} was cancelled`,
          reason === undefined ? undefined : { cause: reason },
        );
    const extra = taskExtra(task);
    extra.abort ??= new AbortController();
    if (!extra.abort.signal.aborted) extra.abort.abort(error);
    this.fail(task, error, undefined);
    return true;
  }

  /** The runtime is ending: nothing more is placed or run here. */
  close(): void {
    this.closed = true;
    this.ready = [];
    this.queued = 0;
    if (this.reportTimer !== undefined) clearTimeout(this.reportTimer);
  }

  private enqueue(t: OwnedTask): void {
    this.ready.push(t);
    if (!this.scheduled) {
      this.scheduled = true;
      queueMicrotask(this.drain);
    }
  }

  /**
   * Runs the ready tasks, those they make ready included, for up to one turn's share; the rest
   * in the next turn, after the event loop has served timers and I/O.
   */
  private readonly drain = (): void => {
    if (this.closed) return;
    const ready = this.ready;
    const start = performance.now();
    let now = start;
    while (ready.length > 0) {
      if (now - start > YIELD_AFTER_MS) {
        setImmediate(this.drain); // still scheduled: what is readied until then waits for it
        return;
      }
      now = this.run(ready.pop()!, now);
    }
    this.scheduled = false;
  };

  /** Runs `t` (its inputs all finished), started at `now`; returns the time it returned. */
  private run(t: OwnedTask, now: number): number {
    const task = t.handle;
    this.queued--;
    if (task.state >= TaskState.Done) return now; // cancelled while queued
    const args = task.args;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (!isDTask(a)) continue;
      if (a.state === TaskState.Failed) {
        this.fail(task, a.value, a);
        return now;
      }
      args[i] = a.value;
    }
    const fn = task.fn as Function;
    let result: unknown;
    this.hooks.enter(t.agent);
    try {
      result = callInFrame(t, fn, args);
    } catch (error) {
      this.hooks.leave();
      this.fail(task, error, undefined);
      return performance.now();
    }
    this.hooks.leave();
    const end = performance.now();
    // A function's first run here (compiled as it runs) is not counted.
    const known = this.costs.get(fn);
    const ms = end - now;
    if (known === undefined) this.costs.set(fn, UNKNOWN_MS);
    else if (ms < known || known === UNKNOWN_MS) this.costs.set(fn, ms);
    if (isThenable(result)) {
      result.then(
        (v) => {
          asyncRunSettled(fn);
          this.settleDone(task, v);
        },
        (e) => {
          asyncRunSettled(fn);
          this.fail(task, e, undefined);
        },
      );
    } else this.settleDone(task, result);
    return end;
  }

  private settleDone(task: DTask<unknown>, value: unknown): void {
    if (task.state >= TaskState.Done) return; // cancelled while running
    task.state = TaskState.Done;
    task.value = value;
    task.args = NO_ARGS; // its inputs are not needed again: its lineage is its parent
    this.finished++;
    this.noteSettled();
    notifyListeners(task);
  }

  /** Fails `task`, owned here, with `error` (its own, or its failed input `upstream`'s). */
  fail(task: DTask<unknown>, error: unknown, upstream: DTask | undefined): void {
    if (task.state >= TaskState.Done) return;
    task.state = TaskState.Failed;
    const failedBefore = DTaskFailedError.isInstance(error);
    task.value =
      failedBefore && error.task.id === task.id
        ? error
        : new DTaskFailedError({
            task,
            rootTask: failedBefore ? error.rootTask : task,
            upstream,
            cause: failedBefore ? error.cause : error,
          });
    task.args = NO_ARGS;
    this.failed++;
    this.noteSettled();
    notifyListeners(task);
  }

  private noteSettled(): void {
    if (this.reportTimer !== undefined || this.closed) return;
    this.reportTimer = setTimeout(this.sendReport, REPORT_EVERY_MS);
    this.reportTimer.unref?.();
  }

  private readonly sendReport = (): void => {
    this.reportTimer = undefined;
    const { finished, failed } = this;
    this.finished = this.failed = 0;
    if (finished + failed > 0) this.hooks.report(finished, failed);
  };
}

/** A settled task's outcome as a promise (a returned `Chunk` gives its value, as elsewhere). */
function settledValue(task: DTask<unknown>): Promise<unknown> {
  if (task.state === TaskState.Failed) return Promise.reject(task.value);
  const value = task.value;
  return isChunk(value) ? value.fetch() : Promise.resolve(value);
}

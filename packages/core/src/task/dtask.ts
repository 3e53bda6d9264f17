import type { Chunk } from '../chunk/chunk.js';
import { describeValue } from '../errors/describe-value.js';
import { ArgumentError } from '../errors/errors.js';
import { checkOptions, type OptionsShape, rule, unknownOption } from '../options/index.js';
import type { Processor } from '../processor/processor.js';
import type { FrameTask } from './frame-task.js';
import { keepShape } from './keep-shapes.js';
import type { TaskOptions } from './options.js';
import { TaskState } from './task-state.js';
import { PendingThen } from './then-queue.js';

const BRAND = Symbol.for('dtask.task');

/** The scheduler side a task talks to (kept abstract so the task file stays small). */
export interface TaskOwner {
  /** Resolves the task's value where the caller is (may pull it from another worker). */
  fetchValue(task: DTask<unknown>): Promise<unknown>;
  /** The result as a `Chunk`. */
  fetchChunk(task: DTask<unknown>): Promise<unknown>;
  /** Cancels the task; returns false when it had already finished. */
  cancel(task: DTask<unknown>, reason?: unknown): boolean;
  /** Called before any wait on a task, so task queues (datadeps) can forbid it. */
  guardWait(task: DTask<unknown>): void;
  /** True when the task's state lives elsewhere (a worker's proxy): always ask the owner. */
  readonly remote?: boolean;
  /** For a remote owner: resolves once the task has finished. */
  wait?(task: DTask<unknown>): Promise<void>;
}

/** Options of `fetch`. */
export interface FetchOptions {
  /** Resolve to the result's `Chunk` instead of its value (Dagger's `fetch(t; raw=true)`). */
  raw?: boolean;
}

const FETCH_OPTIONS: OptionsShape<keyof FetchOptions> = {
  known: ['raw'],
  noArrays: true,
  notObject: (o) => `fetch(options): options must be { raw?: boolean }; got ${describeValue(o)}`,
  unknownKey: unknownOption('fetch(options)'),
  fields: {
    raw: rule(
      (raw) => typeof raw === 'boolean',
      (raw) => `fetch({ raw }): raw must be true or false; got ${describeValue(raw)}`,
    ),
  },
};

/** What is wrong with `fetch`'s options, as a message that says what to pass; else undefined. */
function badFetchOptions(options: unknown): string | undefined {
  if (options === undefined) return undefined;
  try {
    checkOptions(options, FETCH_OPTIONS);
  } catch (error) {
    return (error as Error).message;
  }
  return undefined;
}

/** A listener: a function, or an object (a pending `then`) told through `onTaskSettled`. */
export type Settled = (() => void) | { onTaskSettled(task: DTask<unknown>): void };

/**
 * A handle to one spawned task (Dagger's `DTask`): a `PromiseLike` of its result.
 *
 * `await t` / `t.fetch()` give the value (rejecting with `DTaskFailedError` if the task failed),
 * `t.wait()` resolves once it is done either way, `t.cancel()` stops it. Passing `t` to
 * another `spawn` makes a dependency: that task receives the value, not the handle.
 *
 * The scheduler uses the same object as its graph node, so a task costs one object; the
 * fields below `id` are internal and may change.
 */
export class DTask<T = unknown> implements PromiseLike<T>, FrameTask {
  /** Unique within the program; the key used by `getDagIds`. */
  readonly id: number;
  /** @internal The function (or a Chunk holding it). */
  fn: unknown;
  /** @internal Arguments; `DTask`/`Chunk` entries are replaced by values as inputs arrive. */
  args: unknown[];
  /** @internal Effective options (explicit > withOptions > defaultOption). */
  options: TaskOptions;
  /** @internal Options that propagate to tasks spawned inside this one. */
  inherited: TaskOptions;
  /** @internal TaskState. */
  state: TaskState = TaskState.Queued;
  /** @internal Inputs not yet available. */
  waiting = 0;
  /** @internal Scheduler bits (TaskFlags). */
  flags = 0;
  /** @internal Estimated run time (ms) counted in its processor's load while placed there. */
  estimate = 0;
  /**
   * @internal When it became ready (`performance.now()` ms), while it is timed for `stats()`
   * (sched/stats/task-timing.ts); undefined otherwise, so an untimed task holds no number.
   */
  readyAt: number | undefined = undefined;
  /** @internal Longest chain of worker-held results its own result's lineage spans (faults/lineage.ts). */
  lineage = 0;
  /** @internal Tasks waiting on this one (one task, or several). */
  dependents: DTask<unknown> | DTask<unknown>[] | undefined = undefined;
  /** @internal The value, the error, or a reference to a value held elsewhere. */
  value: unknown = undefined;
  /** @internal Where it is placed / ran / its result lives. */
  proc: Processor | undefined = undefined;
  /** @internal Callbacks run once when it finishes. */
  listeners: Settled | Settled[] | undefined = undefined;
  /** @internal Rarely used extras: abort controller, tls, lineage flags, timings. */
  extra: TaskExtra | undefined = undefined;
  /** @internal */
  readonly owner: TaskOwner;

  constructor(
    owner: TaskOwner,
    id: number,
    fn: unknown,
    args: unknown[],
    options: TaskOptions,
    inherited: TaskOptions,
  ) {
    this.owner = owner;
    this.id = id;
    this.fn = fn;
    this.args = args;
    this.options = options;
    this.inherited = inherited;
  }

  /** The `name` option, if given. */
  get name(): string | undefined {
    return this.options.name;
  }

  /** True once the task has finished, successfully or not (Dagger's `isready`). */
  isReady(): boolean {
    return this.state >= TaskState.Done;
  }

  /**
   * The result, moved to the caller. Rejects with `DTaskFailedError` if the task failed.
   * With `{ raw: true }`, resolves to the result's `Chunk` without moving the data.
   */
  fetch(options: { raw: true }): Promise<Chunk<T>>;
  fetch(options?: FetchOptions): Promise<T>;
  fetch(options?: FetchOptions): Promise<T | Chunk<T>> {
    this.owner.guardWait(this);
    const bad = badFetchOptions(options);
    if (bad) return Promise.reject(new ArgumentError(bad));
    const raw = options?.raw === true;
    if (this.state >= TaskState.Done || this.owner.remote) {
      return (raw ? this.owner.fetchChunk(this) : this.owner.fetchValue(this)) as Promise<T>;
    }
    return new Promise<void>((resolve) => this.onSettled(resolve)).then(
      () => (raw ? this.owner.fetchChunk(this) : this.owner.fetchValue(this)) as Promise<T>,
    );
  }

  /** Resolves once the task has finished; never rejects for the task's own error. */
  wait(): Promise<void> {
    this.owner.guardWait(this);
    if (this.state >= TaskState.Done) return Promise.resolve();
    if (this.owner.wait) return this.owner.wait(this);
    return new Promise<void>((resolve) => this.onSettled(resolve));
  }

  /**
   * Stops the task: a task not yet running fails at once with `CancelledError`; a running one
   * has its abort signal fired and fails with `CancelledError`. Its dependents fail too.
   * Returns false when it had already finished.
   */
  cancel(reason?: unknown): boolean {
    return this.owner.cancel(this, reason);
  }

  /** `PromiseLike`: `await t` is `t.fetch()`. */
  // biome-ignore lint/suspicious/noThenProperty: a DTask is deliberately awaitable, like Dagger's fetch.
  then<R1 = T, R2 = never>(
    onFulfilled?: ((value: T) => R1 | PromiseLike<R1>) | null,
    onRejected?: ((reason: unknown) => R2 | PromiseLike<R2>) | null,
  ): Promise<R1 | R2> {
    if (this.owner.remote) return this.fetch().then(onFulfilled, onRejected);
    this.owner.guardWait(this);
    // No promise unless the caller uses what `then` returns (`await` and `Promise.all` do not).
    const pending = new PendingThen<R1 | R2>(
      onFulfilled as (value: unknown) => unknown,
      onRejected,
    );
    this.onSettled(pending);
    return pending;
  }

  /** Like a promise's `catch`. */
  catch<R = never>(onRejected: (reason: unknown) => R | PromiseLike<R>): Promise<T | R> {
    return this.fetch().catch(onRejected);
  }

  /** Like a promise's `finally`. */
  finally(onFinally: () => void): Promise<T> {
    return this.fetch().finally(onFinally);
  }

  /** @internal Runs `cb` once the task finishes (at once if it has). */
  onSettled(cb: Settled): void {
    if (this.state >= TaskState.Done) {
      if (typeof cb === 'function') cb();
      else cb.onTaskSettled(this);
      return;
    }
    const l = this.listeners;
    if (l === undefined) this.listeners = cb;
    else if (Array.isArray(l)) l.push(cb);
    else this.listeners = [l, cb];
  }

  // A running task is the async context (a `Frame`) of the code it runs.
  /** @internal */
  get frameTask(): FrameTask {
    return this;
  }
  /** @internal */
  get propagated(): TaskOptions {
    return this.inherited;
  }
  /** @internal Tasks spawned inside a task go straight to the scheduler. */
  get queue(): undefined {
    return undefined;
  }

  // FrameTask
  /** @internal */
  get processor(): Processor | undefined {
    return this.proc;
  }
  /** @internal */
  get abortSignal(): AbortSignal {
    const extra = taskExtra(this);
    extra.abort ??= new AbortController();
    return extra.abort.signal;
  }
  /** @internal */
  get tlsValues(): Record<string, unknown> | undefined {
    return this.extra?.tls;
  }
  set tlsValues(values: Record<string, unknown> | undefined) {
    taskExtra(this).tls = values;
  }
  /** @internal */
  get handleOwner(): unknown {
    return this.owner;
  }

  /** Describes the task for debugging: `DTask(#id name state)`. */
  toString(): string {
    return `DTask(#${this.id}${this.name ? ` ${this.name}` : ''})`;
  }

  /** Brand used by `isDTask` (works across copies of the package). */
  get [BRAND](): true {
    return true;
  }

  static {
    // One task that never goes away keeps the shapes of all tasks general (keep-shapes.ts).
    const owner = {} as TaskOwner;
    keepShape(new DTask(owner, -1, undefined, [], {}, {}), (t) => {
      const w = t as { -readonly [K in keyof DTask]: unknown };
      // Each field gets two values of the kinds real tasks store there, as real tasks do.
      for (const [small, object] of [
        [1, {}],
        [2, []],
      ]) {
        w.state = w.waiting = w.flags = w.lineage = small; // small integers
        // Any value (tagged), not a double field: a double field would box a number for every
        // task, and only tasks sent to another thread get an estimate (in milliseconds).
        w.estimate = w.value = small;
        w.estimate = w.value = object;
        w.fn = w.args = w.options = w.inherited = w.owner = object;
        w.dependents = w.proc = w.listeners = w.extra = object;
      }
    });
  }
}

/** Per-task data that most tasks never need, kept out of the main object. */
export interface TaskExtra {
  abort?: AbortController;
  tls?: Record<string, unknown>;
  /** Detaches the `signal` option's listener. */
  unlisten?: () => void;
  /** When the task started running (ms). */
  startedAt?: number;
  /** Result size in bytes, when known. */
  bytes?: number;
  /** Worker deaths blamed on this task: each death shared among the tasks that were running. */
  kills?: number;
  /** Times this task's worker died while it may have been running. */
  deaths?: number;
  /** Why the task is not run again after its worker died (it fails with `WorkerLostError`). */
  notRerun?: string;
  /** An `inPlace` task's worker said it began: its writes may have happened. */
  began?: boolean;
  /** Times this task was run again after it threw (its `retries` option). */
  retried?: number;
  /** A copy of its worker-held result kept on the scheduler's thread, its lineage let go. */
  kept?: { value: unknown };
  /** Its arguments before per-processor chunks were replaced by pieces (placed again: restored). */
  beforePieces?: unknown[];
  /**
   * Sent ahead to a worker to wait there for the tasks its queue orders it after (`sendAhead`,
   * `TaskQueue.awaitsOnWorkers`): those still being made there when it was sent.
   */
  after?: readonly DTask<unknown>[];
  /**
   * The id of the latest task dispatched to write this task's result in place: a task of a
   * lower id that read the result read it before those writes.
   */
  writtenBy?: number;
}

/** The task's extras, created on first use. */
export function taskExtra(task: DTask<unknown>): TaskExtra {
  task.extra ??= {};
  return task.extra;
}

/** True for a `DTask` from any copy of the package. */
export function isDTask(x: unknown): x is DTask<unknown> {
  return typeof x === 'object' && x !== null && (x as Record<symbol, unknown>)[BRAND] === true;
}

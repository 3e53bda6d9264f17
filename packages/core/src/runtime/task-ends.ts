import type { LocalStore } from '../chunk/local-store.js';
import { sizeOf } from '../chunk/size-of.js';
import { serializeError } from '../errors/serialize-error.js';
import type { Batcher } from '../protocol/batcher.js';
import { pushDone } from '../protocol/packs.js';
import { type FromWorker, INLINE_RESULT_BYTES } from '../protocol/protocol.js';
import { ExactScope } from '../scope/exact-scope.js';
import { returnedArgs } from '../task/returned-args.js';
import type { BlockPool } from './block-pool.js';
import type { InPlaceBegins } from './in-place-begins.js';
import type { LocalInputs } from './local-inputs.js';
import type { LogShipper } from './log-shipper.js';
import type { ValueAdapter } from './value-adapter.js';
import { wireValue } from './wire-value.js';
import type { WorkerTask } from './worker-task.js';

/**
 * Longest a busy runtime holds back completion reports (ms): half the scheduler's queue-ahead
 * budget (`AHEAD_MS`, slot-queue.ts), so that more work arrives before the queue runs dry.
 */
const REPORT_EVERY_MS = 4;

/**
 * A task that ran at least this long (ms) is reported at once, even in a run of queued tasks:
 * a message then costs under a percent of its work, and tasks on the scheduler's side may wait
 * for it (the next tile of a factorisation, ordered by datadeps, is never sent ahead). Held
 * back, such a report waited behind the next queued task, up to `REPORT_EVERY_MS`.
 */
const REPORT_LONG_MS = 1;

/** What `TaskEnds` uses of its runtime. */
export interface TaskEndParts {
  /** The runtime's outgoing batches. */
  readonly out: Batcher<FromWorker>;
  /** Its log shipper (a task's span and events go before its report). */
  readonly logs: LogShipper;
  /** Its reports of in-place tasks begun. */
  readonly begins: InPlaceBegins;
  /** Its value adapter, if a plugin gave one. */
  readonly adapter: ValueAdapter | undefined;
  /** The id of the processor the tasks run on (their log spans name it, pinned results too). */
  readonly processor: string;
  /** Its store of results kept here. */
  readonly store: LocalStore;
  /** Its block pool, if it has one. */
  readonly pool: BlockPool | undefined;
  /** The results kept here as inputs of the tasks here, and the tasks waiting for them. */
  readonly inputs: LocalInputs;
  /** Runs a task sent ahead whose inputs all exist now (the runtime's `runWoken`). */
  readonly wake: (task: WorkerTask) => void;
}

/**
 * What a worker runtime does when a task that ran here ended: where its result stays (inline
 * in the report, kept in the store, its memory offered to the block pool), its log span and the
 * events it recorded, its completion (in the batch's done pack) or its failure, when the batch
 * leaves, and the tasks here that waited for its result. The whole path of a task that ended
 * well is one method on one object of one shape: V8 counts the bytecode a function runs before
 * it optimises it, so one method that does the work optimises after fewer tasks than the
 * same work split among several.
 */
export class TaskEnds {
  private readonly out: Batcher<FromWorker>;
  private readonly logs: LogShipper;
  private readonly begins: InPlaceBegins;
  private readonly adapter: ValueAdapter | undefined;
  private readonly processor: string;
  private readonly store: LocalStore;
  private readonly pool: BlockPool | undefined;
  private readonly inputs: LocalInputs;
  private readonly wake: (task: WorkerTask) => void;

  constructor(parts: TaskEndParts) {
    this.out = parts.out;
    this.logs = parts.logs;
    this.begins = parts.begins;
    this.adapter = parts.adapter;
    this.processor = parts.processor;
    this.store = parts.store;
    this.pool = parts.pool;
    this.inputs = parts.inputs;
    this.wake = parts.wake;
  }

  /**
   * `task` returned `value` at `end` (`performance.now()`); `parts`: `value` is a group's
   * report, its outputs kept already (always inline); `handed`: the block memory its own
   * function took from the pool, when it returned synchronously (such a result's memory may go
   * back to the pool). A small result travels with the report, unless it cannot: the task is
   * then reported failed, and the tasks here that waited for it still get it.
   */
  done(
    task: WorkerTask,
    end: number,
    value: unknown,
    parts: boolean,
    handed?: SharedArrayBuffer[],
  ): void {
    const id = task.id;
    const inputs = this.inputs;
    const kept = this.adapter?.keptBytes?.(value);
    const bytes = kept ?? sizeOf(value);
    const waiters = inputs.waitingFor.get(id);
    // A result whose resultScope is exactly this processor (pinned state, e.g. a shard's piece)
    // stays here even when small: its consumers take this very object, and may mutate it.
    // So does the result of a task that wrote its arguments in place (a view of that data).
    const pinned = task.options.inPlaceArgs !== undefined || this.pinnedHere(task);
    const inline =
      parts ||
      (kept === undefined &&
        !pinned &&
        bytes <= INLINE_RESULT_BYTES &&
        typeof value !== 'function');
    if (!inline) {
      this.store.set(id, value, bytes);
      // Its memory returns to the pool if no one reads it before its release (block-pool.ts).
      const alone = !pinned && waiters === undefined && !inputs.consumers.has(id);
      this.pool?.made(id, value, alone ? handed : undefined);
    } else if (inputs.consumers.has(id)) {
      this.store.set(id, value, bytes);
      inputs.keptForConsumers.add(id);
    }
    const ms = end - task.startedAt;
    const back = returnedArgs(task.options, task.args); // copy-out (returned-args.ts)
    this.logs.ended(task, this.processor, ms); // the task's own events go first
    let sent: unknown;
    // A primitive travels as it is; only an object or a converting adapter needs `wireValue`.
    if (inline && (this.adapter !== undefined || (typeof value === 'object' && value !== null)))
      sent = this.sendable(task, value, ms);
    else if (inline) sent = value;
    if (sent !== this) {
      this.begins.ended(id, false);
      const out = this.out;
      // A long task's report leaves at once (below): it needs no flush scheduled for it.
      const long = ms >= REPORT_LONG_MS;
      if (long) out.sendingNow();
      pushDone(out, id, bytes, ms, inline ? 1 : 0, sent, back);
      // While it works through a run of queued tasks, the runtime reports every few
      // milliseconds, not only when the run ends: the scheduler then sends more before it runs
      // dry. Counted from the oldest report waiting, not from the last batch sent: a worker idle
      // before this run would otherwise send its first report alone, a second message per batch.
      if (long || end - out.openedAt >= REPORT_EVERY_MS) out.flush();
    }
    if (task.held !== undefined) inputs.unhold(task);
    if (waiters) inputs.arrived(id, value, waiters, this.wake);
  }

  /**
   * Whether `task`'s result must stay on this processor because its resultScope is exactly
   * this processor (pinned state). `instanceof` only for a scope: on a class named by the
   * build it is slow even for undefined.
   */
  private pinnedHere(task: WorkerTask): boolean {
    const rs = task.options.resultScope;
    return rs !== undefined && rs instanceof ExactScope && rs.id === this.processor;
  }

  /**
   * `value`, a small result of `task`, as it travels inline with the completion report; or
   * this object when it cannot travel, with the task reported failed (after `ms`).
   */
  private sendable(task: WorkerTask, value: unknown, ms: number): unknown {
    try {
      return wireValue(this.adapter, value, task.id);
    } catch (error) {
      this.fail(task.id, error, ms);
      return this;
    }
  }

  /**
   * Reports that `task`, which ran `ms` if it started (its `startedAt` set), failed with
   * `error`.
   */
  failed(task: WorkerTask, error: unknown, ms: number): void {
    if (task.startedAt) this.logs.ran(task, this.processor, ms);
    this.logs.ship();
    this.fail(task.id, error, ms);
  }

  /** Reports that task `id` failed with `error` after `ms` (0: it never ran here). */
  fail(id: number, error: unknown, ms: number): void {
    this.out.push({ op: 'fail', id, error: serializeError(error), ms });
  }
}

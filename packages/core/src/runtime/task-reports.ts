import { serializeError } from '../errors/serialize-error.js';
import type { Batcher } from '../protocol/batcher.js';
import { pushDone } from '../protocol/packs.js';
import type { FromWorker } from '../protocol/protocol.js';
import { returnedArgs } from '../task/returned-args.js';
import type { InPlaceBegins } from './in-place-begins.js';
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

/**
 * How a worker runtime tells the scheduler that a task ended: its log span and the events it
 * recorded first, then its completion (in the batch's done pack, its small result inline) or
 * its failure, and when the batch leaves. Its per-task path is one short method, on one object
 * of one shape, so that V8 optimises it early in a run.
 */
export class TaskReports {
  constructor(
    private readonly out: Batcher<FromWorker>,
    private readonly logs: LogShipper,
    private readonly begins: InPlaceBegins,
    private readonly adapter: ValueAdapter | undefined,
    /** The id of the processor the tasks run on (their log spans name it). */
    private readonly processor: string,
  ) {}

  /**
   * Reports that `task` ended well at `end` (`performance.now()`), its result of `bytes`
   * travelling with the report when `inline`, else kept here. When that result cannot travel,
   * the task is reported failed instead.
   */
  done(task: WorkerTask, end: number, bytes: number, inline: boolean, value: unknown): void {
    const ms = end - task.startedAt;
    const back = returnedArgs(task.options, task.args); // copy-out (returned-args.ts)
    this.logs.ended(task, this.processor, ms); // the task's own events go first
    let sent: unknown;
    if (inline) {
      // A primitive travels as it is; only an object or a converting adapter needs `wireValue`.
      if (this.adapter === undefined && (typeof value !== 'object' || value === null)) sent = value;
      else {
        sent = this.sendable(task, value, ms);
        if (sent === this) return;
      }
    }
    this.begins.ended(task.id, false);
    const out = this.out;
    // A long task's report leaves at once (below): it needs no flush scheduled for it.
    const long = ms >= REPORT_LONG_MS;
    if (long) out.sendingNow();
    pushDone(out, task.id, bytes, ms, inline ? 1 : 0, sent, back);
    // While it works through a run of queued tasks, the runtime reports every few
    // milliseconds, not only when the run ends: the scheduler then sends more before it runs dry.
    // Counted from the oldest report waiting, not from the last batch sent: a worker idle
    // before this run would otherwise send its first report alone, a second message per batch.
    if (long || end - out.openedAt >= REPORT_EVERY_MS) out.flush();
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

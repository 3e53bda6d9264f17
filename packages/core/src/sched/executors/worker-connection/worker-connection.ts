import type { Chunk } from '../../../chunk/chunk.js';
import { WorkerLostError } from '../../../errors/errors.js';
import type { Processor } from '../../../processor/processor.js';
import { Batcher } from '../../../protocol/batcher.js';
import type { LentChunk } from '../../../protocol/lent-chunk.js';
import { forEachDone, pushRun } from '../../../protocol/packs.js';
import { toPlainOptions, toRunOptions } from '../../../protocol/plain-options.js';
import {
  type ArgRefs,
  DONES,
  type DonePack,
  type FromWorker,
  type ToWorker,
} from '../../../protocol/protocol.js';
import { Requests } from '../../../protocol/requests.js';
import type { Transport } from '../../../protocol/transport.js';
import type { DTask } from '../../../task/dtask.js';
import { IdTable } from '../../../task/id-table.js';
import { RemoteResult } from '../../../task/remote-result.js';
import { TaskFlags, TaskState } from '../../../task/task-state.js';
import { unboxClasses } from '../../../travel/class-travel.js';
import { FunctionDecoder, FunctionEncoder } from '../../../travel/function-ref.js';
import { applyReturnedArgs } from '../../dispatch/apply-returned-args.js';
import type { Executor, ExecutorSink } from '../../dispatch/executor.js';
import type { SchedulerState } from '../../scheduler-state.js';
import { HeldResults } from './held-results.js';
import { LogRelay } from './log-relay.js';
import { NestedTasks } from './nested-tasks.js';
import { hasTaskOrChunkArgs, withAwaitedRefs } from './outgoing-args.js';
import { PlannedSends } from './planned-sends.js';
import { runArgs, runTransfer, SendRefused } from './run-message.js';
import { takeBack } from './take-back.js';
import { unsendableToWorker } from './unsendable-argument.js';
import {
  askStarted,
  endAfterGrace,
  failOnClose,
  fetchHome,
  splitSuspects,
} from './worker-ending.js';
import { handleReport, type ReportParts } from './worker-reports.js';

/** Options of a `WorkerConnection`. */
export interface WorkerConnectionOptions {
  /** The processor the runtime on the other end runs tasks as. */
  processor: Processor;
  /** The scheduler that nested `spawn`s from the worker go to. */
  scheduler: SchedulerState;
  /** Tasks sent ahead per processor beyond the one running (keeps the worker busy). */
  queueAhead?: number;
  /**
   * Estimated milliseconds it costs to give work to this runtime's processor while it is idle:
   * waking a process whose caches have gone cold, one more batch each way. Placement packs a
   * task whose learned run time is shorter on a processor already at work rather than wake
   * another (see `chooseSlot`). Default 0: a thread of this process is cheap to wake.
   */
  wakeMs?: number;
  /** Modules to resolve functions that travel by name (`everywhere`), by specifier. */
  modules?: Map<string, Record<string, unknown>>;
  /** Called when the connection closes or breaks, before in-flight tasks are handed back. */
  onLost?: (connection: WorkerConnection, reason: unknown) => void;
  /**
   * Ends the worker by force (e.g. `Worker.terminate`). Used when a cancelled task has not
   * stopped within `cancelGraceMs`; that kill does not count against the task limit.
   */
  terminate?: () => void;
  /** How long a cancelled running task may take to stop before its worker is ended (ms). */
  cancelGraceMs?: number;
  /**
   * The runtime's `runningTask` memory (see `WorkerRuntimeOptions`): names a crash's culprit
   * and the in-place tasks that began.
   */
  runningTask?: Float64Array;
  /**
   * Whether the runtime on the other end has a peer link to the runtime behind `other`, so it
   * can take `other`'s results directly; when it has none they come through this thread.
   * Default: linked to none. Plugins that start workers say which of their own are linked
   * (`@dtask/threads`: all its threads; `@dtask/cluster`: the worker processes that have linked
   * to each other); a worker in a thread of its own (a GPU processor's) has no peers.
   */
  linkedTo?: (other: WorkerConnection) => boolean;
}

/** Where a remote result is (a `RemoteResult`'s key): its worker's connection, its key there. */
type ResultKey = { connection: WorkerConnection; key: number };

/**
 * The scheduler's side of one worker runtime: an `Executor` that sends tasks there in batches,
 * keeps results there (as `RemoteResult`s), fetches them on demand, answers the runtime's
 * nested `spawn`/`fetch`, and hands back every task in flight if the connection breaks.
 */
export class WorkerConnection implements Executor {
  readonly inline = false;
  readonly shipsFunctions = true;
  readonly acceptsPending = true;
  readonly capacity: number;
  readonly wakeMs: number;
  readonly processor: Processor;
  private readonly out: Batcher<ToWorker>;
  private readonly requests = new Requests();
  private readonly encoder = new FunctionEncoder();
  private readonly decoder: FunctionDecoder;
  /** Tasks sent and not yet reported, by id. */
  readonly inFlight = new IdTable<DTask<unknown>>();
  /** Sends tasks that take tasks or chunks, once their inputs are planned (and have come). */
  private readonly planned: PlannedSends;
  /** Tasks spawned from inside the worker, and chunks lent to its `meta` tasks. */
  private readonly nested: NestedTasks;
  private sink: ExecutorSink | undefined;
  private closed = false;
  /** Cancelled tasks whose worker has not acknowledged the cancel yet. */
  private readonly cancelling = new Set<number>();
  /** Whether the transport currently keeps the process alive. */
  private referenced = true;
  /**
   * The worker said every task it holds is stalled (unsettled, waiting on nothing that can
   * make progress): they do not keep node alive, as they would not on the main thread.
   */
  private stalled = false;
  /** Batches sent to the worker: a stall report counts only if it had seen all of them. */
  private sentBatches = 0;
  /** Set when we close it ourselves: losses then do not count as kills. */
  private closing = false;
  /** @internal The results the worker holds: where they are, and their release. */
  readonly held: HeldResults;
  /** The worker's logs and clock (see `LogRelay`). */
  readonly logs: LogRelay;
  /** What the worker's reports other than completions go to (worker-reports.ts). */
  private readonly reports: ReportParts;

  constructor(
    private readonly transport: Transport,
    private readonly options: WorkerConnectionOptions,
  ) {
    this.processor = options.processor;
    this.capacity = 1 + (options.queueAhead ?? 1024);
    this.wakeMs = options.wakeMs ?? 0;
    // Anything sent to a worker that said it is stalled is work it may make progress on: the
    // connection keeps node alive again until the worker says it is stalled again.
    this.out = new Batcher({
      send: (message, transfer) => {
        this.sentBatches++;
        if (this.stalled) {
          this.stalled = false;
          this.updateRef();
        }
        transport.send(message, transfer);
      },
      onMessage: (handler) => transport.onMessage(handler),
      onClose: (handler) => transport.onClose(handler),
      close: () => transport.close(),
    });
    this.out.onUnsendable = (m, error) =>
      unsendableToWorker(m, error, this.holder, (id, e) => this.failSent(id, e));
    this.logs = new LogRelay(this.out, this.processor);
    const modules = options.modules ?? new Map();
    this.decoder = new FunctionDecoder((m) => modules.get(m));
    this.held = new HeldResults(this.out, this.isLost);
    this.planned = new PlannedSends(this, (task, args, refs) => this.send(task, args, refs));
    this.nested = new NestedTasks(options.scheduler, this.decoder, this.out);
    this.reports = {
      inFlight: this.inFlight,
      cancelling: this.cancelling,
      requests: this.requests,
      nested: this.nested,
      logs: this.logs,
      held: this.held,
      scheduler: options.scheduler,
      decoder: this.decoder,
      out: this.out,
      sink: () => this.sink,
      ready: () => {
        this.wasReady = true;
      },
      // A report made before the worker saw the latest batch (new work) is stale.
      stalled: (stalled, seen) => {
        this.stalled = stalled && seen === this.sentBatches;
      },
    };
    transport.onMessage((batch) => {
      this.heardBatches++;
      for (const m of batch as FromWorker[]) this.handle(m);
      this.updateRef();
    });
    transport.onClose((reason) => this.lost(reason));
    this.updateRef();
  }

  /** The holder id the runtime reports for its results (its processor id). */
  get holder(): string {
    return this.processor.id;
  }

  /**
   * True once the runtime said it is ready (it started and loaded what it must load). A worker
   * lost before that failed to start, which its plugin may treat differently from a crash.
   */
  wasReady = false;

  /** How many batches came from the worker: whether it still talks (`failInFlightOnClose`). */
  private heardBatches = 0;

  /** True once the connection closed or broke. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** @internal Whether results held by this worker are gone (it closed or died). */
  readonly isLost = (): boolean => this.closed;

  /**
   * Keeps the process alive exactly while something waits on this worker: a task in flight
   * that is not stalled, or a pending fetch. An idle worker does not keep node running, nor
   * does one whose tasks wait on nothing but promises (see `StallWatch`).
   */
  private updateRef(): void {
    const busy = (this.inFlight.size > 0 && !this.stalled) || this.requests.size > 0;
    if (busy === this.referenced || this.closed) return;
    this.referenced = busy;
    if (busy) this.transport.ref?.();
    else this.transport.unref?.();
  }

  run(task: DTask<unknown>, _proc: Processor, sink: ExecutorSink): void {
    this.sink = sink;
    if (this.closed) {
      // Placed here just before the loss was noticed: place it again elsewhere.
      sink.lost([task], new WorkerLostError(`Worker ${this.holder} is gone`), true);
      return;
    }
    if (typeof task.fn !== 'function') {
      // A function chunk: resolve it here first, then send the function.
      Promise.resolve((task.fn as { fetch(): Promise<unknown> }).fetch()).then(
        (fn) => {
          task.fn = fn;
          this.run(task, _proc, sink);
        },
        (error) => sink.fail(task, error),
      );
      return;
    }
    // No task or chunk among its arguments when it was submitted: they go as they are.
    if ((task.flags & TaskFlags.ValueArgs) !== 0 || !hasTaskOrChunkArgs(task)) {
      this.send(task, task.args, undefined);
      return;
    }
    // A copy: the task keeps its inputs (its lineage).
    this.planned.plan(task, task.args.slice(), undefined, sink);
  }

  /** See `ArgTarget.linked`: a worker of the same scheduler (whose ids other contexts reuse). */
  linked(v: RemoteResult): boolean {
    const k = v.key;
    return !isResultKey(k) || k.connection.options.scheduler === this.options.scheduler;
  }

  /** See `ArgTarget.refOf`. */
  refOf(v: RemoteResult): [holder: string, key: number] | undefined {
    const k = v.key;
    if (!isResultKey(k)) return undefined;
    if (k.connection === this) return ['', k.key];
    return this.isLinkedTo(k.connection) ? [k.connection.holder, k.key] : undefined;
  }

  /** See `ArgTarget.lend`. */
  lend(chunk: Chunk<unknown>): LentChunk {
    return this.nested.lend(chunk);
  }

  /** See `WorkerConnectionOptions.linkedTo`. */
  private isLinkedTo(other: WorkerConnection): boolean {
    return this.options.linkedTo?.(other) ?? false;
  }

  private send(task: DTask<unknown>, args: unknown[], refs: ArgRefs | undefined): void {
    if (task.state !== TaskState.Running) return;
    // Copy-in (`sendArgs`), class instances boxed, the `transfer` option (run-message.ts).
    const sent = runArgs(task, args, this.holder);
    if (sent instanceof SendRefused) {
      this.sink?.fail(task, sent.error);
      return;
    }
    const o = task.options;
    const transfer =
      o.sendArgs === undefined && o.transfer === undefined
        ? undefined
        : runTransfer(task, args, sent);
    if (transfer instanceof SendRefused) {
      this.sink?.fail(task, transfer.error);
      return;
    }
    this.inFlight.set(task.id, task);
    if (!this.referenced) this.updateRef();
    const fn = this.encoder.encode(task.fn as Function);
    const options = toRunOptions(task.options);
    const inherited = toPlainOptions(task.inherited);
    // Sent ahead of the tasks its queue orders it after (`sendAhead`): it waits for them there.
    if ((task.flags & TaskFlags.SentAhead) !== 0 && task.extra?.after !== undefined) {
      refs = withAwaitedRefs(task, refs, this.processor);
    }
    pushRun(this.out, task.id, fn, sent, refs, options, inherited, transfer);
  }

  flush(): void {
    this.out.flush();
  }

  poll(): void {
    if (!this.closed) this.transport.poll?.();
  }

  withdraw(task: DTask<unknown>): void {
    this.planned.forget(task);
    if (this.inFlight.delete(task.id) && !this.closed)
      this.out.push({ op: 'withdraw', id: task.id });
  }

  async giveBack(tasks: DTask<unknown>[]): Promise<DTask<unknown>[]> {
    if (this.closed) return [];
    const back = await takeBack(tasks, this.inFlight, this.requests, this.out);
    this.updateRef();
    return back;
  }

  cancel(task: DTask<unknown>): void {
    this.planned.forget(task);
    if (!this.inFlight.delete(task.id) || this.closed) return;
    this.out.push({ op: 'cancel', id: task.id });
    // The worker acknowledges a cancel when it gets to it; a task that blocks its thread
    // never lets it, so after the grace period the worker is ended and replaced.
    const terminate = this.options.terminate;
    if (!terminate) return;
    this.cancelling.add(task.id);
    endAfterGrace(this.options.cancelGraceMs ?? 1000, () => {
      if (!this.cancelling.delete(task.id) || this.closed) return;
      this.closing = true;
      terminate();
    });
  }

  /**
   * Settles every task in flight here because the context closes (they are not handed back,
   * which would run them elsewhere after the close): a task the worker never started fails
   * with `CancelledError`, one that started, or may have (no answer: the worker said nothing
   * for `ms`, by default the cancel grace period, or kept starting or reporting other tasks for
   * ten times that), with `WorkerLostError`. Called by plugins' `close()` after
   * removing the processor.
   */
  async failInFlightOnClose(ms = this.options.cancelGraceMs ?? 1000): Promise<void> {
    // Which tasks the worker started; none answers for a worker that is gone. It may keep
    // talking (starting, reporting other tasks) before it reads the question (`askStarted`).
    const heard = () => (this.wasReady ? this.heardBatches : undefined);
    const asked = this.inFlight.size > 0 && !this.closed;
    const started = asked ? await askStarted(this.requests, this.out, ms, heard) : undefined;
    failOnClose(this.options.scheduler.sink, this.inFlight.values(), started, this.holder);
  }

  /**
   * Brings every result this worker holds for a live task to the scheduler's thread, as
   * fetching it would (the task's value becomes local), so that the worker can be ended
   * without those results being recomputed from lineage: a plugin retiring an idle worker
   * calls it after removing the processor and before `close()`. A result pinned away from
   * the scheduler's thread by its `resultScope` is only copied there, and one that cannot be
   * read fails to come: if still wanted, they are recomputed from lineage once the worker is
   * gone. Resolves to how many results were moved; never rejects.
   */
  bringResultsHome(): Promise<number> {
    const isHere = (key: unknown) => isResultKey(key) && key.connection === this;
    return fetchHome(this.options.scheduler, this.held.tasks(), isHere);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    this.out.push({ op: 'close' });
    this.out.flush();
    this.transport.close();
  }

  /**
   * Pulls result `key` from the runtime. With `take`, the runtime hands it over for good: it
   * drops its entry and transfers the value's `ArrayBuffer`s instead of copying them.
   */
  fetch(key: number, take = false): Promise<unknown> {
    if (this.closed)
      return Promise.reject(
        new WorkerLostError(`Worker ${this.holder} is gone; its results are lost`),
      );
    const answer = this.requests.ask((req) =>
      this.out.push(take ? { op: 'fetch', req, key, take } : { op: 'fetch', req, key }),
    );
    this.updateRef();
    return answer;
  }

  private handle(m: FromWorker): void {
    if (Array.isArray(m)) {
      if (m[0] === DONES) forEachDone(m as DonePack, this.onDone);
      else this.onDone(m[1], m[2], m[3], m[4], m[5], m[6]);
      return;
    }
    handleReport(m, this.reports);
  }

  /** Task `id` finished (the fields of a `DoneRecord`). */
  private readonly onDone = (
    id: number,
    bytes: number,
    ms: number,
    inline: 0 | 1,
    value: unknown,
    args?: unknown[],
  ): void => {
    if (this.cancelling.size > 0) this.cancelling.delete(id);
    const task = this.inFlight.get(id);
    if (!task) {
      if (!inline) this.held.release(id);
      return;
    }
    this.inFlight.delete(id);
    // Copy-out (returned-args.ts): written arguments go home before dependents are released;
    // a write-back on the worker holding their data completes first.
    const failed = args === undefined ? undefined : applyReturnedArgs(task, args);
    if (failed instanceof Promise) {
      failed.then((error) => this.settle(task, id, bytes, ms, inline, value, error));
      return;
    }
    this.settle(task, id, bytes, ms, inline, value, failed);
  };

  /** Completes `task` with what its runtime reported, or fails it with `failed`. */
  private settle(
    task: DTask<unknown>,
    id: number,
    bytes: number,
    ms: number,
    inline: 0 | 1,
    value: unknown,
    failed: unknown,
  ): void {
    if (failed !== undefined) {
      this.settleFailed(task, id, inline, failed);
      return;
    }
    if (inline) {
      this.completeInline(task, value, ms);
      return;
    }
    const key: ResultKey = { connection: this, key: id };
    const result = new RemoteResult(
      this.processor,
      () => this.fetch(id),
      bytes,
      key,
      this.isLost,
      () => this.fetch(id, true),
      this.held.isInHost,
    );
    this.held.releaseWith(task, id);
    this.sink?.completeRemote(task, result, ms);
  }

  /**
   * Fails `task` (id `id`) with `failed`, an error in writing its arguments back: a result it
   * left on the runtime (not `inline`) is let go there.
   */
  private settleFailed(task: DTask<unknown>, id: number, inline: 0 | 1, failed: unknown): void {
    if (!inline) this.held.release(id);
    this.sink?.fail(task, failed);
  }

  /**
   * Completes `task` with `value`, its result that came inline, its class instances rebuilt;
   * fails it when they cannot be. Apart from `settle`, whose other branches V8 would weigh
   * with it when it decides to optimise the per-completion path.
   */
  private completeInline(task: DTask<unknown>, value: unknown, ms: number): void {
    let v: unknown;
    try {
      v = unboxClasses(value);
    } catch (error) {
      this.sink?.fail(task, error);
      return;
    }
    this.sink?.complete(task, v, ms);
  }

  /** Fails task `id`, sent here, with `error` (its message could not be cloned). */
  private failSent(id: number, error: unknown): void {
    const task = this.inFlight.get(id);
    this.inFlight.delete(id);
    if (task) this.sink?.fail(task, error);
  }

  private lost(reason: unknown): void {
    if (this.closed) return;
    this.closed = true;
    this.logs.close();
    const error = new WorkerLostError(
      `Worker ${this.holder} was lost`,
      reason === undefined ? undefined : { cause: reason },
    );
    this.requests.rejectAll(error);
    const [suspects, rest] = splitSuspects(this.inFlight, this.options.runningTask);
    this.inFlight.clear();
    // Remove the processor first, so the tasks handed back are placed elsewhere.
    this.options.onLost?.(this, reason);
    if (suspects.length > 0) this.sink?.lost(suspects, error, this.closing);
    if (rest.length > 0) this.sink?.lost(rest, error, true);
  }
}

function isResultKey(x: unknown): x is ResultKey {
  return (
    typeof x === 'object' && x !== null && (x as ResultKey).connection instanceof WorkerConnection
  );
}

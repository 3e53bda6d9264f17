import type { Chunk } from '../../chunk/chunk.js';
import { ArgumentError, InputLostError, WorkerLostError } from '../../errors/errors.js';
import { deserializeError, serializeError } from '../../errors/serialize-error.js';
import type { Processor } from '../../processor/processor.js';
import { type Executor, type ExecutorSink, RemoteResult } from '../../sched/dispatch/executor.js';
import type { Scheduler } from '../../sched/scheduler.js';
import type { DTask } from '../../task/dtask.js';
import { runWithFrame, ScopedFrame } from '../../task/frame.js';
import { mergeOptions } from '../../task/options.js';
import { makeTask } from '../../task/spawn-task.js';
import { TaskFlags, TaskState } from '../../task/task-state.js';
import { FunctionDecoder, FunctionEncoder } from '../function-travel/function-ref.js';
import { Batcher } from '../protocol/batcher.js';
import { describeLent, type LentChunk } from '../protocol/lent-chunk.js';
import { fromPlainOptions, toPlainOptions } from '../protocol/plain-options.js';
import {
  type ArgRefs,
  type DoneRecord,
  type FromWorker,
  RUN,
  type ToWorker,
} from '../protocol/protocol.js';
import { Requests } from '../protocol/requests.js';
import { applyReturnedArgs } from '../protocol/returned-args.js';
import type { Transport } from '../protocol/transport.js';
import { transferablesOf } from '../runtime/hand-over.js';
import { LogRelay } from './log-relay.js';
import { hasTaskOrChunkArgs, inputsBeingMade, planArgs } from './outgoing-args.js';
import { serveDynamic } from './serve-dynamic.js';
import { unsendableArgument } from './unsendable-argument.js';

/** What the scheduler knows about where a remote result is. */
interface ResultKey {
  connection: WorkerConnection;
  key: number;
}

/** Options of a `WorkerConnection`. */
export interface WorkerConnectionOptions {
  /** The processor the runtime on the other end runs tasks as. */
  processor: Processor;
  /** The scheduler that nested `spawn`s from the worker go to. */
  scheduler: Scheduler;
  /** Tasks sent ahead per processor beyond the one running (keeps the worker busy). */
  queueAhead?: number;
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
  /** The runtime's `runningTask` memory (see `WorkerRuntimeOptions`): names a crash's culprit. */
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
  readonly processor: Processor;
  private readonly out: Batcher<ToWorker>;
  private readonly requests = new Requests();
  private readonly encoder = new FunctionEncoder();
  private readonly decoder: FunctionDecoder;
  /** Tasks sent and not yet reported, by id. */
  readonly inFlight = new Map<number, DTask<unknown>>();
  /** Tasks placed here that wait for inputs before being sent, with their current attempt. */
  private readonly planning = new Map<DTask<unknown>, object>();
  /** Tasks spawned from inside the worker, by id (until the worker drops its handles). */
  private readonly proxied = new Map<number, DTask<unknown>>();
  /** Chunks lent to `meta` tasks there, by (negative) key, until the worker drops them. */
  private readonly lent = new Map<number, Chunk<unknown>>();
  private lastLent = 0;
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
  private readonly released: number[] = [];
  private readonly finalizer = new FinalizationRegistry<number>((key) => this.release(key));
  /** The worker's logs and clock (see `LogRelay`). */
  readonly logs: LogRelay;

  constructor(
    private readonly transport: Transport,
    private readonly options: WorkerConnectionOptions,
  ) {
    this.processor = options.processor;
    this.capacity = 1 + (options.queueAhead ?? 1024);
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
    this.out.onUnsendable = (m, error) => this.unsendable(m, error);
    this.logs = new LogRelay(this.out, this.processor);
    const modules = options.modules ?? new Map();
    this.decoder = new FunctionDecoder((m) => modules.get(m));
    transport.onMessage((batch) => {
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

  /** True once the connection closed or broke. */
  get isClosed(): boolean {
    return this.closed;
  }

  /** Whether results held by this worker are gone (it closed or died). */
  private readonly isLost = (): boolean => this.closed;
  /** Keys of results the runtime moved from device to host memory (`movedToHost`). */
  private readonly inHost = new Set<number>();
  private readonly isInHost = (key: unknown): boolean =>
    this.inHost.size > 0 && this.inHost.has((key as ResultKey).key);

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

  // ------------------------------------------------------------------ Executor

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
    if (!hasTaskOrChunkArgs(task)) {
      this.send(task, task.args, undefined);
      return;
    }
    // A copy: the task keeps its inputs (its lineage).
    this.sendPlanned(task, task.args.slice(), undefined, sink);
  }

  /**
   * Plans the arguments at `indices` (see `planArgs`) and sends the task once those being
   * brought here have come. References are planned again after such a wait: meanwhile a
   * result may have started moving here, or have been dropped by its holder. And after a
   * wait, an input still being made on the worker could finish, and let go of a small
   * result, before this task's message arrives there: the task then waits for it here first.
   * (Regression: tasks sent ahead waited forever for such inputs, when another input was on
   * its way here, or on a storage device of this thread.)
   */
  private sendPlanned(
    task: DTask<unknown>,
    args: unknown[],
    indices: readonly number[] | undefined,
    sink: ExecutorSink,
    again = false,
  ): void {
    const plan = planArgs(task, this, args, indices);
    if (plan.lost >= 0) {
      // Its holder died after this task was placed: recompute the input, then run again.
      const i = plan.lost;
      sink.lost(
        [task],
        new InputLostError(`Input ${i} of task #${task.id} was lost with its worker`),
        true,
      );
      return;
    }
    const made = again && plan.waits === undefined ? inputsBeingMade(task, plan.refs) : undefined;
    const waits = plan.waits ?? (made?.length ? made.map(settled) : undefined);
    if (waits === undefined) {
      this.send(task, args, plan.refs);
      return;
    }
    const attempt = {};
    this.planning.set(task, attempt);
    const refs = plan.refs?.map(([i]) => i) ?? [];
    const current = () => this.planning.get(task) === attempt && this.planning.delete(task);
    Promise.all(waits).then(
      () => {
        // Withdrawn, cancelled or placed again meanwhile; or failed.
        if (!current() || task.state !== TaskState.Running) return;
        if (this.closed) {
          // The worker died while the inputs came: place the task again elsewhere.
          sink.lost([task], new WorkerLostError(`Worker ${this.holder} is gone`), true);
          return;
        }
        this.sendPlanned(task, args, refs, sink, true);
      },
      (error) => {
        if (current()) sink.fail(task, error);
      },
    );
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
    const key = --this.lastLent;
    this.lent.set(key, chunk);
    return describeLent(key, chunk);
  }

  /** See `WorkerConnectionOptions.linkedTo`. */
  private isLinkedTo(other: WorkerConnection): boolean {
    return this.options.linkedTo?.(other) ?? false;
  }

  private send(task: DTask<unknown>, args: unknown[], refs: ArgRefs | undefined): void {
    if (task.state !== TaskState.Running) return;
    const pack = task.options.sendArgs;
    let transfer: ArrayBuffer[] | undefined;
    if (pack !== undefined) {
      // Copy-in (the `sendArgs` option): what travels in place of the arguments. The values it
      // made for the message are the message's: their buffers move instead of being copied.
      try {
        const packed = pack(args);
        transfer = transferablesOf(
          packed.filter((x, i) => x !== args[i]),
          [],
        );
        args = packed;
      } catch (error) {
        this.sink?.fail(task, error);
        return;
      }
    }
    this.inFlight.set(task.id, task);
    if (!this.referenced) this.updateRef();
    const fn = this.encoder.encode(task.fn as Function);
    const options = toPlainOptions(task.options);
    const inherited = toPlainOptions(task.inherited);
    // Trailing undefined fields are left out: a shorter tuple to allocate and to clone.
    if (inherited !== undefined)
      this.out.push([RUN, task.id, fn, args, refs, options, inherited], transfer);
    else if (options !== undefined)
      this.out.push([RUN, task.id, fn, args, refs, options], transfer);
    else if (refs !== undefined) this.out.push([RUN, task.id, fn, args, refs], transfer);
    else this.out.push([RUN, task.id, fn, args], transfer);
  }

  flush(): void {
    this.out.flush();
  }

  poll(): void {
    if (!this.closed) this.transport.poll?.();
  }

  withdraw(task: DTask<unknown>): void {
    this.planning.delete(task);
    if (this.inFlight.delete(task.id) && !this.closed)
      this.out.push({ op: 'withdraw', id: task.id });
  }

  cancel(task: DTask<unknown>): void {
    this.planning.delete(task);
    if (!this.inFlight.delete(task.id) || this.closed) return;
    this.out.push({ op: 'cancel', id: task.id });
    // The worker acknowledges a cancel when it gets to it; a task that blocks its thread
    // never lets it, so after the grace period the worker is ended and replaced.
    const terminate = this.options.terminate;
    if (!terminate) return;
    this.cancelling.add(task.id);
    const timer = setTimeout(() => {
      if (!this.cancelling.delete(task.id) || this.closed) return;
      this.closing = true;
      terminate();
    }, this.options.cancelGraceMs ?? 1000);
    timer.unref();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    this.out.push({ op: 'close' });
    this.out.flush();
    this.transport.close();
  }

  // ------------------------------------------------------------------ data

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

  private release(key: number): void {
    if (this.closed) return;
    if (this.inHost.size > 0) this.inHost.delete(key);
    this.released.push(key);
    if (this.released.length === 1) {
      queueMicrotask(() => {
        const keys = this.released.splice(0);
        if (!this.closed && keys.length > 0) this.out.push({ op: 'release', keys });
      });
    }
  }

  // ------------------------------------------------------------------ incoming

  private handle(m: FromWorker): void {
    if (Array.isArray(m)) {
      this.onDone(m);
      return;
    }
    switch (m.op) {
      case 'ready':
        this.wasReady = true;
        break;
      case 'stalled':
        // A report made before the worker saw the latest batch (new work) is stale.
        this.stalled = m.stalled && m.seen === this.sentBatches;
        break;
      case 'fail': {
        this.cancelling.delete(m.id);
        const task = this.inFlight.get(m.id);
        if (!task) return;
        this.inFlight.delete(m.id);
        const error = deserializeError(m.error);
        // An input held by a worker that died: recompute it and run this task again.
        if (InputLostError.isInstance(error)) this.sink?.lost([task], error, true);
        else this.sink?.fail(task, error);
        return;
      }
      case 'value':
        this.requests.resolve(m.req, m.value);
        return;
      case 'error':
        this.requests.reject(m.req, m.error);
        return;
      case 'spawn':
        this.onSpawn(m);
        return;
      case 'fetchTask':
      case 'waitTask':
        this.onTaskQuery(m);
        return;
      case 'cancelTask':
        this.proxied.get(m.id)?.cancel();
        return;
      case 'releaseTask':
        for (const id of m.ids) {
          if (id < 0) this.lent.delete(id);
          else this.proxied.delete(id);
        }
        return;
      case 'logs':
        this.logs.onLogs(m.events);
        return;
      case 'clock':
        this.logs.onClock(m.t0, m.t1, m.mono, m.machine);
        return;
      case 'movedToHost':
        for (const key of m.keys) this.inHost.add(key);
        return;
      case 'dynamic':
        serveDynamic(m, this.inFlight.get(m.task), this.options.scheduler, this.decoder, this.out);
        return;
    }
  }

  private onDone([, id, bytes, ms, inline, value, args]: DoneRecord): void {
    if (this.cancelling.size > 0) this.cancelling.delete(id);
    const task = this.inFlight.get(id);
    if (!task) {
      if (!inline) this.release(id);
      return;
    }
    this.inFlight.delete(id);
    // Copy-out (returned-args.ts): written arguments go home before dependents are released.
    const failed = args === undefined ? undefined : applyReturnedArgs(task, args);
    if (failed !== undefined) {
      if (!inline) this.release(id);
      this.sink?.fail(task, failed);
      return;
    }
    if (inline) {
      this.sink?.complete(task, value, ms);
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
      this.isInHost,
    );
    this.finalizer.register(task, id);
    this.sink?.completeRemote(task, result, ms);
  }

  private onSpawn(m: Extract<FromWorker, { op: 'spawn' }>): void {
    const scheduler = this.options.scheduler;
    let fn: Function;
    try {
      fn = this.decoder.decode(m.fn);
    } catch (error) {
      fn = () => {
        throw error;
      };
    }
    const extra: DTask<unknown>[] = [];
    for (const [index, id] of m.taskArgs ?? []) {
      const dep = this.proxied.get(id);
      if (!dep) continue;
      if (index >= 0) m.args[index] = dep;
      else extra.push(dep);
    }
    const inherited = fromPlainOptions(m.inherited);
    const options = mergeOptions(inherited, fromPlainOptions(m.options));
    const task = runWithFrame(new ScopedFrame(undefined, inherited, undefined), () =>
      makeTask(scheduler, m.id, fn, m.args, options, inherited),
    );
    task.flags |= TaskFlags.Nested;
    this.proxied.set(m.id, task);
    scheduler.submit(task, extra.length > 0 ? extra : undefined);
  }

  private onTaskQuery(m: Extract<FromWorker, { op: 'fetchTask' | 'waitTask' }>): void {
    const task = m.id < 0 ? this.lent.get(m.id) : this.proxied.get(m.id);
    if (!task) {
      const error = new ArgumentError(`Task #${m.id} is not known to the scheduler`);
      this.out.push({ op: 'reject', req: m.req, error: serializeError(error) });
      return;
    }
    const answer =
      m.op === 'waitTask' ? ('wait' in task ? task.wait() : Promise.resolve()) : task.fetch();
    answer.then(
      (value) =>
        this.out.push({ op: 'reply', req: m.req, value: m.op === 'waitTask' ? undefined : value }),
      (error) => this.out.push({ op: 'reject', req: m.req, error: serializeError(error) }),
    );
  }

  /** A task whose arguments cannot be cloned fails; a reply that cannot be becomes an error. */
  private unsendable(m: ToWorker, error: unknown): ToWorker | undefined {
    if (Array.isArray(m)) {
      const task = this.inFlight.get(m[1]);
      this.inFlight.delete(m[1]);
      if (task) this.sink?.fail(task, unsendableArgument(task.id, m[3], this.holder, error));
      return undefined;
    }
    if (m.op === 'reply') return { op: 'reject', req: m.req, error: serializeError(error) };
    return undefined;
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
    // Only the task that was running is charged with the kill: the one the runtime named in
    // shared memory, else (a crash from async code) the oldest in flight.
    const named = this.options.runningTask?.[0];
    const culprit = (named && this.inFlight.get(named)) || this.inFlight.values().next().value;
    const rest = [...this.inFlight.values()].filter((t) => t !== culprit);
    this.inFlight.clear();
    // Remove the processor first, so the tasks handed back are placed elsewhere.
    this.options.onLost?.(this, reason);
    if (culprit) this.sink?.lost([culprit], error, this.closing);
    if (rest.length > 0) this.sink?.lost(rest, error, true);
  }
}

function isResultKey(x: unknown): x is ResultKey {
  return (
    typeof x === 'object' && x !== null && (x as ResultKey).connection instanceof WorkerConnection
  );
}

/** Resolves once `task` has finished, either way. */
function settled(task: DTask<unknown>): Promise<void> {
  return new Promise((resolve) => task.onSettled(resolve));
}

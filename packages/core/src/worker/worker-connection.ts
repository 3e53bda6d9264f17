import { isChunk } from '../chunk/chunk.js';
import { ArgumentError, WorkerLostError } from '../errors/errors.js';
import { deserializeError, serializeError } from '../errors/serialize-error.js';
import type { Processor } from '../processor/processor.js';
import { type Executor, type ExecutorSink, RemoteResult } from '../sched/dispatch/executor.js';
import type { Scheduler } from '../sched/scheduler.js';
import { type DTask, isDTask } from '../task/dtask.js';
import { runWithFrame, ScopedFrame } from '../task/frame.js';
import { mergeOptions } from '../task/options.js';
import { makeTask } from '../task/spawn-task.js';
import { TaskState } from '../task/task-state.js';
import { Batcher } from './batcher.js';
import { FunctionDecoder, FunctionEncoder } from './function-ref.js';
import { fromPlainOptions, toPlainOptions } from './plain-options.js';
import type { ArgRefs, FromWorker, ToWorker } from './protocol.js';
import { Requests } from './requests.js';
import type { Transport } from './transport.js';

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
  /** Called when the connection closes or breaks, after in-flight tasks were handed back. */
  onLost?: (connection: WorkerConnection, reason: unknown) => void;
}

/**
 * The scheduler's side of one worker runtime: an `Executor` that sends tasks there in batches,
 * keeps results there (as `RemoteResult`s), fetches them on demand, answers the runtime's
 * nested `spawn`/`fetch`, and hands back every task in flight if the connection breaks.
 */
export class WorkerConnection implements Executor {
  readonly inline = false;
  readonly capacity: number;
  readonly processor: Processor;
  private readonly out: Batcher<ToWorker>;
  private readonly requests = new Requests();
  private readonly encoder = new FunctionEncoder();
  private readonly decoder: FunctionDecoder;
  /** Tasks sent and not yet reported, by id. */
  readonly inFlight = new Map<number, DTask<unknown>>();
  /** Tasks spawned from inside the worker, by id (until the worker drops its handles). */
  private readonly proxied = new Map<number, DTask<unknown>>();
  private sink: ExecutorSink | undefined;
  private closed = false;
  /** Set when we close it ourselves: losses then do not count as kills. */
  private closing = false;
  private readonly released: number[] = [];
  private readonly finalizer = new FinalizationRegistry<number>((key) => this.release(key));

  constructor(
    private readonly transport: Transport,
    private readonly options: WorkerConnectionOptions,
  ) {
    this.processor = options.processor;
    this.capacity = 1 + (options.queueAhead ?? 4);
    this.out = new Batcher(transport);
    this.out.onSendError = (error, batch) => this.onSendError(error, batch);
    const modules = options.modules ?? new Map();
    this.decoder = new FunctionDecoder((m) => modules.get(m));
    transport.onMessage((batch) => {
      for (const m of batch as FromWorker[]) this.handle(m);
    });
    transport.onClose((reason) => this.lost(reason));
  }

  /** The holder id the runtime reports for its results (its processor id). */
  get holder(): string {
    return this.processor.id;
  }

  /** True once the connection closed or broke. */
  get isClosed(): boolean {
    return this.closed;
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
    const args = task.args.slice();
    let refs: ArgRefs | undefined;
    let waits: Promise<unknown>[] | undefined;
    const meta = task.options.meta === true;
    for (let i = 0; i < args.length; i++) {
      const a = args[i];
      if (typeof a !== 'object' || a === null) continue;
      if (isDTask(a)) {
        const v = a.value;
        if (meta) {
          (waits ??= []).push(a.owner.fetchChunk(a).then((c) => (args[i] = c)));
        } else if (v instanceof RemoteResult && isResultKey(v.key)) {
          const holder = v.key.connection === this ? '' : v.key.connection.holder;
          (refs ??= []).push([i, v.key.key, holder]);
          args[i] = null;
        } else if (v instanceof RemoteResult) {
          (waits ??= []).push(v.fetch().then((x) => (args[i] = x)));
        } else args[i] = v;
      } else if (isChunk(a) && !meta) {
        (waits ??= []).push(a.fetch().then((x) => (args[i] = x)));
      }
    }
    const send = (): void => {
      if (task.state !== TaskState.Running) return;
      this.inFlight.set(task.id, task);
      this.out.push({
        op: 'run',
        id: task.id,
        fn: this.encoder.encode(task.fn as Function),
        args,
        refs,
        options: toPlainOptions(task.options),
        inherited: toPlainOptions(task.inherited),
      });
    };
    if (waits) Promise.all(waits).then(send, (error) => sink.fail(task, error));
    else send();
  }

  cancel(task: DTask<unknown>): void {
    if (this.inFlight.delete(task.id) && !this.closed) this.out.push({ op: 'cancel', id: task.id });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closing = true;
    this.out.push({ op: 'close' });
    this.out.flush();
    this.transport.close();
  }

  // ------------------------------------------------------------------ data

  /** Pulls result `key` from the runtime. */
  fetch(key: number): Promise<unknown> {
    if (this.closed)
      return Promise.reject(
        new WorkerLostError(`Worker ${this.holder} is gone; its results are lost`),
      );
    return this.requests.ask((req) => this.out.push({ op: 'fetch', req, key }));
  }

  private release(key: number): void {
    if (this.closed) return;
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
    switch (m.op) {
      case 'ready':
        break;
      case 'done':
        this.onDone(m);
        return;
      case 'fail': {
        const task = this.inFlight.get(m.id);
        if (!task) return;
        this.inFlight.delete(m.id);
        this.sink?.fail(task, deserializeError(m.error));
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
        for (const id of m.ids) this.proxied.delete(id);
        return;
    }
  }

  private onDone(m: Extract<FromWorker, { op: 'done' }>): void {
    const task = this.inFlight.get(m.id);
    if (!task) {
      if (!m.inline) this.release(m.key);
      return;
    }
    this.inFlight.delete(m.id);
    if (m.inline) {
      this.sink?.complete(task, m.value, m.ms);
      return;
    }
    const key: ResultKey = { connection: this, key: m.key };
    const result = new RemoteResult(this.processor, () => this.fetch(m.key), m.bytes, key);
    this.finalizer.register(task, m.key);
    this.sink?.completeRemote(task, result, m.ms);
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
    this.proxied.set(m.id, task);
    scheduler.submit(task, extra.length > 0 ? extra : undefined);
  }

  private onTaskQuery(m: Extract<FromWorker, { op: 'fetchTask' | 'waitTask' }>): void {
    const task = this.proxied.get(m.id);
    if (!task) {
      const error = new ArgumentError(`Task #${m.id} is not known to the scheduler`);
      this.out.push({ op: 'reject', req: m.req, error: serializeError(error) });
      return;
    }
    const answer = m.op === 'waitTask' ? task.wait() : task.fetch();
    answer.then(
      (value) =>
        this.out.push({ op: 'reply', req: m.req, value: m.op === 'waitTask' ? undefined : value }),
      (error) => this.out.push({ op: 'reject', req: m.req, error: serializeError(error) }),
    );
  }

  private onSendError(error: unknown, batch: ToWorker[]): void {
    for (const m of batch) {
      try {
        this.transport.send([m]);
      } catch (e) {
        if (m.op === 'run') {
          const task = this.inFlight.get(m.id);
          this.inFlight.delete(m.id);
          if (task) this.sink?.fail(task, e);
        } else if (m.op === 'reply') {
          this.transport.send([{ op: 'reject', req: m.req, error: serializeError(e) }]);
        }
        void error;
      }
    }
  }

  private lost(reason: unknown): void {
    if (this.closed) return;
    this.closed = true;
    const error = new WorkerLostError(
      `Worker ${this.holder} was lost`,
      reason === undefined ? undefined : { cause: reason },
    );
    this.requests.rejectAll(error);
    const tasks = [...this.inFlight.values()];
    this.inFlight.clear();
    // Remove the processor first, so the tasks handed back are placed elsewhere.
    this.options.onLost?.(this, reason);
    this.sink?.lost(tasks, error, this.closing);
  }
}

function isResultKey(x: unknown): x is ResultKey {
  return (
    typeof x === 'object' && x !== null && (x as ResultKey).connection instanceof WorkerConnection
  );
}

import { isMainThread } from 'node:worker_threads';
import { defaultLocalStore, type LocalStore } from '../../chunk/local-store.js';
import { sizeOf } from '../../chunk/size-of.js';
import { CancelledError, InputLostError } from '../../errors/errors.js';
import { serializeError } from '../../errors/serialize-error.js';
import { MemorySampler } from '../../log/memory-sampler.js';
import { setCurrentWorker } from '../../processor/current-worker.js';
import type { Processor } from '../../processor/processor.js';
import { ThreadProc } from '../../processor/thread-proc.js';
import { ExactScope } from '../../scope/exact-scope.js';
import { callInFrame } from '../../task/frame.js';
import { NO_OPTIONS } from '../../task/options.js';
import { reserveTaskIds } from '../../task/spawn-task.js';
import {
  FunctionDecoder,
  FunctionEncoder,
  registerModuleFunctions,
} from '../function-travel/function-ref.js';
import { Batcher } from '../protocol/batcher.js';
import { LENT_HOLDER, type LentChunk } from '../protocol/lent-chunk.js';
import { fromPlainOptions } from '../protocol/plain-options.js';
import {
  DONE,
  type FromWorker,
  INLINE_RESULT_BYTES,
  type PeerMessage,
  type RunRecord,
  type ToWorker,
} from '../protocol/protocol.js';
import { Requests } from '../protocol/requests.js';
import { returnedArgs } from '../protocol/returned-args.js';
import type { Transport } from '../protocol/transport.js';
import { transferablesOf } from './hand-over.js';
import { LogShipper } from './log-shipper.js';
import { ProxyOwner } from './proxy-owner.js';
import { StallWatch } from './stall-watch.js';
import { unsendableResult } from './unsendable-result.js';
import type { ValueAdapter } from './value-adapter.js';
import { WorkerTask } from './worker-task.js';

/**
 * Longest a busy runtime holds back completion reports (ms): half the scheduler's queue-ahead
 * budget (`AHEAD_MS`, slot-queue.ts), so that more work arrives before the queue runs dry.
 */
const REPORT_EVERY_MS = 4;

/**
 * Longest a runtime runs tasks in one turn of its event loop (ms) before the next ready task
 * waits for a `setImmediate`: between long tasks it then serves peers' fetches and reads the
 * scheduler's messages (regression: a thread working through a run of 60 ms matrix-product
 * blocks kept its peer waiting for the blocks it held until the whole run was done).
 */
const YIELD_AFTER_MS = 4;

/** Options of `startWorkerRuntime`. */
export interface WorkerRuntimeOptions {
  /** The worker (OS process) id this runtime runs in. */
  worker: number;
  /** The thread number of this runtime within its worker. */
  thread: number;
  /** The processor it runs tasks as (default `ThreadProc(worker, thread)`). */
  processor?: Processor;
  /** Modules loaded here with `everywhere`, by specifier (for functions that travel by name). */
  modules?: Map<string, Record<string, unknown>>;
  /** Sets this process's worker id (only for the first runtime of a new process). */
  setProcessWorker?: boolean;
  /**
   * Whether this thread may block until another thread writes a synchronous answer
   * (`getDagIds`) into memory it waits on, even where the transport does not share memory with
   * the scheduler. Default: yes in a worker thread whose transport shares memory, no elsewhere
   * (there `getDagIds` throws `DynamicTaskError`). A worker process whose transport has another
   * thread write the answers (@dtask/cluster's heartbeat thread) says yes, main thread included.
   */
  blockingAnswers?: boolean;
  /**
   * First id for tasks spawned in this runtime's thread. A runtime in its own thread or process
   * must set it to a range of its own (e.g. `(worker * 1024 + thread) * 2 ** 32`); one sharing
   * the scheduler's thread (tests) leaves it unset.
   */
  idBase?: number;
  /**
   * Shared memory where the runtime writes the id of the task running synchronously now (0 when
   * none), so that if the thread dies the scheduler knows which task was running.
   */
  runningTask?: Float64Array;
  /**
   * Where results are kept (default: a `Map`). A storage plugin's `setupWorker` supplies one,
   * e.g. `@dtask/lmdb`'s store that spills to disk past a memory limit.
   */
  store?: LocalStore;
  /**
   * Converts values at this runtime's edges (see `ValueAdapter`): a GPU plugin's worker entry
   * gives one so that tasks receive tensors and results stay here as tensors.
   */
  adapter?: ValueAdapter;
  /**
   * Tell the scheduler when every task held here is stalled (unsettled with nothing left that
   * can make progress: see `StallWatch`), so that such tasks do not keep node alive, as they
   * would not on the main thread. For worker threads, whose event loop holds only this
   * runtime's channels besides the tasks' own timers and I/O.
   */
  watchStalls?: boolean;
}

/**
 * The worker side of dtask: executes tasks sent over `transport` in this thread, keeps their
 * results here (only small ones travel back with the completion), serves results to the
 * scheduler and to peer runtimes, runs a task sent ahead as soon as its local inputs exist, and
 * proxies `spawn`/`fetch` made inside tasks back to the scheduler. Transport-agnostic: the
 * threads and cluster plugins give it a MessagePort or a socket.
 */
export class WorkerRuntime {
  /** Results kept here, by key (the task id that made them); a `Map` unless a plugin gave one. */
  readonly store: LocalStore;
  /** Local consumers still to come for a result, by key (see `countLocalConsumers`). */
  private readonly consumers = new Map<number, number>();
  /** Small results kept only for local consumers (the scheduler got them inline). */
  private readonly keptForConsumers = new Set<number>();
  /** Tasks waiting for local results, by the key they wait for. */
  private readonly waitingFor = new Map<number, WorkerTask[]>();
  private readonly running = new Map<number, WorkerTask>();
  private readonly out: Batcher<FromWorker>;
  private readonly requests = new Requests();
  private readonly decoder: FunctionDecoder;
  private readonly peers = new Map<string, { out: Batcher<PeerMessage>; requests: Requests }>();
  readonly processor: Processor;
  readonly holder: string;
  private readonly modules: Map<string, Record<string, unknown>>;
  private readonly runningTask: Float64Array | undefined;
  /** The scheduler proxy that tasks spawned here go to. */
  readonly owner: ProxyOwner;
  private closed = false;
  private readonly adapter: ValueAdapter | undefined;
  private readonly stalls: StallWatch | undefined;
  /** Batches received from the scheduler (a stall report says how many it had seen). */
  private heardBatches = 0;
  /** When this turn of the event loop began running tasks (see `YIELD_AFTER_MS`). */
  private turnStart = 0;
  /** Ready tasks waiting for the next turn, in order. */
  private deferred: WorkerTask[] = [];
  /** This thread's log events, sent to the scheduler while it logs. */
  private readonly logs: LogShipper;

  constructor(
    private readonly transport: Transport,
    options: WorkerRuntimeOptions,
  ) {
    this.store = options.store ?? defaultLocalStore();
    this.adapter = options.adapter;
    this.processor = options.processor ?? new ThreadProc(options.worker, options.thread);
    this.holder = this.processor.id;
    this.runningTask = options.runningTask;
    if (options.setProcessWorker) setCurrentWorker(options.worker);
    if (options.idBase !== undefined) reserveTaskIds(options.idBase);
    this.modules = options.modules ?? new Map();
    this.decoder = new FunctionDecoder((m) => this.modules.get(m));
    this.out = new Batcher(transport);
    this.out.onUnsendable = (m, error) => this.unsendable(m, error);
    this.owner = new ProxyOwner(
      this.out,
      new FunctionEncoder(),
      this.requests,
      this.processor,
      transport.sharesMemory === true || options.blockingAnswers === true,
      options.blockingAnswers ?? !isMainThread,
    );
    this.logs = new LogShipper(
      this.out,
      // The runtime on a worker process's main thread speaks for the process's memory.
      options.setProcessWorker && isMainThread ? new MemorySampler() : undefined,
    );
    if (options.watchStalls) {
      this.stalls = new StallWatch(
        () => this.holdsOnlyWaitingTasks(),
        (stalled) => {
          this.out.push({ op: 'stalled', stalled, seen: this.heardBatches });
          this.out.flush();
        },
      );
    }
    transport.onMessage((batch) => {
      this.turnStart = performance.now();
      this.heardBatches++;
      this.countLocalConsumers(batch as ToWorker[]);
      for (const m of batch as ToWorker[]) this.handle(m);
      this.stalls?.heard();
    });
    transport.onClose(() => this.shutdown());
    this.store.onMovedToHost?.((keys) => this.out.push({ op: 'movedToHost', keys: [...keys] }));
    this.out.push({ op: 'ready', holder: this.holder });
  }

  /** Makes a module loaded here (`everywhere`) known, so its functions can travel by name. */
  addModule(specifier: string, namespace: Record<string, unknown>): void {
    this.modules.set(specifier, namespace);
    registerModuleFunctions(specifier, namespace);
  }

  /** Connects to another runtime so results move between the two directly. */
  connectPeer(holder: string, transport: Transport): void {
    const out = new Batcher<PeerMessage>(transport);
    out.onUnsendable = (m, error) => (m.op === 'value' ? unsendableValue(m, error) : undefined);
    const requests = new Requests();
    const replaced = this.peers.get(holder);
    this.peers.set(holder, { out, requests });
    // A link is replaced when its thread died and a new one took its name. The old link may
    // never close (a port sent to a thread killed before it read it), so what was asked over
    // it is given up now: those tasks run again and ask the replacement.
    replaced?.requests.rejectAll(new InputLostError(`Peer ${holder} was replaced`));
    transport.onMessage((batch) => {
      this.turnStart = performance.now();
      for (const m of batch as PeerMessage[]) {
        if (m.op === 'peerFetch') this.servePeer(out, m.req, m.key);
        else if (m.op === 'value') requests.resolve(m.req, m.value);
        else requests.reject(m.req, m.error);
      }
      this.stalls?.soon();
    });
    transport.onClose(() => {
      // What was asked over this connection will not be answered, even when a newer connection
      // to a replacement of that peer has arrived meanwhile (regression: a fetch sent just
      // before the replacement's link hung its task forever). The task then runs again and
      // asks the replacement, or its input is recomputed.
      requests.rejectAll(new InputLostError(`Peer ${holder} closed; what it held is gone`));
      if (this.peers.get(holder)?.out === out) this.peers.delete(holder);
    });
  }

  private servePeer(out: Batcher<PeerMessage>, req: number, key: number): void {
    const backlog = this.store.backlog?.();
    if (backlog !== undefined) {
      // Reading it may bring it back from disk: not while the store is over its limit.
      backlog.then(() => this.servePeer(out, req, key));
      return;
    }
    if (!this.store.has(key)) {
      // Asked of a replacement runtime under the same name: the result died with its predecessor.
      const error = new InputLostError(`No result #${key} here (${this.holder})`);
      out.push({ op: 'error', req, error: serializeError(error) });
      return;
    }
    let value: unknown;
    try {
      value = this.store.get(key);
    } catch (error) {
      out.push({ op: 'error', req, error: serializeError(error) });
      return;
    }
    out.push({ op: 'value', req, value: this.wire(value), key });
  }

  /** `value` as it leaves this runtime (converted by the adapter, if any). */
  private wire(value: unknown): unknown {
    return this.adapter?.toWire ? this.adapter.toWire(value) : value;
  }

  /**
   * Tasks sent ahead name results of this runtime that may finish before their message is
   * read: count them first, so such a result is kept here (even a small one, which otherwise
   * only travels back inline) until each of them has taken it.
   */
  private countLocalConsumers(batch: ToWorker[]): void {
    for (const m of batch) {
      if (!Array.isArray(m) || m[4] === undefined) continue;
      for (const [, key, holder] of m[4]) {
        if (holder === '' || holder === this.holder)
          this.consumers.set(key, (this.consumers.get(key) ?? 0) + 1);
      }
    }
  }

  /** A local consumer took result `key`: drop it once nobody else here will, if only kept for them. */
  private consumed(key: number): void {
    const left = (this.consumers.get(key) ?? 1) - 1;
    if (left > 0) {
      this.consumers.set(key, left);
      return;
    }
    this.consumers.delete(key);
    if (this.keptForConsumers.delete(key)) this.store.delete(key);
  }

  private handle(m: ToWorker): void {
    if (Array.isArray(m)) {
      this.accept(m as RunRecord);
      return;
    }
    switch (m.op) {
      case 'fetch':
        if (!this.store.has(m.key))
          this.out.push({
            op: 'error',
            req: m.req,
            error: serializeError(new Error(`No result #${m.key} here`)),
          });
        else if (m.take) this.handOver(m.req, m.key);
        else
          this.out.push({
            op: 'value',
            req: m.req,
            value: this.wire(this.store.get(m.key)),
            key: m.key,
          });
        break;
      case 'release':
        for (const k of m.keys) this.store.delete(k);
        break;
      case 'cancel':
        this.cancel(m.id);
        break;
      case 'withdraw':
        this.withdraw(m.id);
        break;
      case 'reply':
        this.requests.resolve(m.req, m.value);
        break;
      case 'reject':
        this.requests.reject(m.req, m.error);
        break;
      case 'logging':
        this.logs.switch(m.enabled, m.realm);
        break;
      case 'clock':
        this.logs.answerClock(m.t0);
        break;
      case 'close':
        this.logs.stop();
        this.transport.close();
        break;
    }
  }

  /**
   * The scheduler takes result `key` for good: drop it and transfer its buffers rather than
   * copy them, unless tasks sent here still need it (it then goes once they have taken it).
   */
  private handOver(req: number, key: number): void {
    const value = this.wire(this.store.get(key));
    if (this.consumers.has(key)) {
      this.keptForConsumers.add(key);
      this.out.push({ op: 'value', req, value, key });
      return;
    }
    this.store.delete(key);
    this.out.push({ op: 'value', req, value, key }, transferablesOf(value, this.stillHeld()));
  }

  /** Values this runtime still uses: stored results and the arguments of its tasks. */
  private *stillHeld(): Iterable<unknown> {
    yield* this.store.values();
    for (const task of this.running.values()) yield* task.args;
  }

  private accept([, id, fnRef, args, refs, options, inherited]: RunRecord): void {
    let fn: Function;
    try {
      fn = this.decoder.decode(fnRef);
    } catch (error) {
      this.out.push({ op: 'fail', id, error: serializeError(error), ms: 0 });
      return;
    }
    const task = new WorkerTask(
      id,
      fn,
      args,
      options === undefined ? NO_OPTIONS : fromPlainOptions(options),
      inherited === undefined ? NO_OPTIONS : fromPlainOptions(inherited),
      this.processor,
      this.owner,
    );
    if (refs) {
      for (const [index, key, holder] of refs) {
        if (holder === LENT_HOLDER) {
          task.args[index] = this.owner.borrow(args[index] as LentChunk);
        } else if (holder === '' || holder === this.holder) {
          if (this.store.has(key)) {
            if (this.store.backlog !== undefined) (task.localReads ??= []).push(index, key);
            else {
              task.args[index] = this.store.get(key);
              this.consumed(key);
            }
          } else {
            task.missing++;
            let list = this.waitingFor.get(key);
            if (!list) this.waitingFor.set(key, (list = []));
            list.push(task);
            (task.awaited ??= []).push(index, key);
          }
        } else this.fetchFromPeer(task, index, key, holder);
      }
    }
    this.running.set(task.id, task);
    if (task.missing === 0 && task.pendingFetches === 0) this.run(task);
  }

  /** See `StallWatch`: tasks held here, none waiting on the runtime (peer input, back-pressure). */
  private holdsOnlyWaitingTasks(): boolean {
    if (this.running.size === 0) return false;
    for (const t of this.running.values()) {
      if (t.startedAt !== 0) continue;
      if (t.pendingFetches > 0 || t.missing === 0) return false;
    }
    return true;
  }

  private fetchFromPeer(task: WorkerTask, index: number, key: number, holder: string): void {
    const peer = this.peers.get(holder);
    task.pendingFetches++;
    const got = peer
      ? peer.requests.ask((req) => peer.out.push({ op: 'peerFetch', req, key }))
      : Promise.reject(new InputLostError(`No connection to ${holder}, which held input ${index}`));
    got.then(
      (value) => {
        task.args[index] = value;
        if (--task.pendingFetches === 0 && task.missing === 0) this.run(task);
      },
      // An input lost with its holder (InputLostError) makes the scheduler recompute it; any
      // other error (a value that cannot be cloned) fails the task.
      (error) => this.finishFail(task, error),
    );
  }

  private run(task: WorkerTask): void {
    if (task.cancelled) return;
    if (performance.now() - this.turnStart > YIELD_AFTER_MS) {
      if (this.deferred.push(task) === 1) setImmediate(this.runDeferred);
      return;
    }
    const backlog = this.store.backlog?.();
    if (backlog !== undefined) {
      // The store is over its memory limit and writing to disk: start once a write is done.
      backlog.then(() => {
        if (this.running.get(task.id) === task) this.run(task);
      });
      return;
    }
    if (task.localReads !== undefined && !this.readLocalInputs(task)) return;
    task.startedAt = performance.now();
    const slot = this.runningTask;
    if (slot !== undefined) slot[0] = task.id;
    let result: unknown;
    try {
      const fn = this.adapter?.wrap ? this.adapter.wrap(task.fn as never) : task.fn;
      result = callInFrame(task, fn, task.args);
    } catch (error) {
      if (slot !== undefined) slot[0] = 0;
      this.finishFail(task, error);
      return;
    }
    if (slot !== undefined) slot[0] = 0;
    if (
      result !== null &&
      (typeof result === 'object' || typeof result === 'function') &&
      typeof (result as PromiseLike<unknown>).then === 'function'
    ) {
      (result as PromiseLike<unknown>).then(
        (v) => this.finishDone(task, v),
        (e) => this.finishFail(task, e),
      );
    } else this.finishDone(task, result);
  }

  /** A new turn: runs the deferred tasks in order until this turn has run long enough. */
  private readonly runDeferred = (): void => {
    const queue = this.deferred;
    this.deferred = [];
    this.turnStart = performance.now();
    for (let i = 0; i < queue.length; i++) {
      if (i > 0 && performance.now() - this.turnStart > YIELD_AFTER_MS) {
        const rest = queue.slice(i);
        const later = this.deferred;
        this.deferred = rest.concat(later);
        if (later.length === 0) setImmediate(this.runDeferred);
        return;
      }
      const task = queue[i];
      if (this.running.get(task.id) === task) this.run(task);
    }
  };

  /** Reads the inputs `task` left in the store until it starts; false (and it fails) if one is gone. */
  private readLocalInputs(task: WorkerTask): boolean {
    const reads = task.localReads!;
    task.localReads = undefined;
    for (let i = 0; i < reads.length; i += 2) {
      const key = reads[i + 1];
      if (!this.store.has(key)) {
        this.finishFail(task, new InputLostError(`Input ${reads[i]} (result ${key}) is gone`));
        return false;
      }
      try {
        task.args[reads[i]] = this.store.get(key); // may read it back from disk
      } catch (error) {
        this.finishFail(task, error);
        return false;
      }
      this.consumed(key);
    }
    return true;
  }

  private finishDone(task: WorkerTask, value: unknown): void {
    if (!this.running.delete(task.id) || task.cancelled) return;
    this.stalls?.soon();
    const end = performance.now();
    const ms = end - task.startedAt;
    const kept = this.adapter?.keptBytes?.(value);
    const bytes = kept ?? sizeOf(value);
    const waiters = this.waitingFor.get(task.id);
    // A result whose resultScope is exactly this processor (pinned state, e.g. a shard's piece)
    // stays here even when small: its consumers take this very object, and may mutate it.
    // So does the result of a task that wrote its arguments in place (a view of that data).
    const rs = task.options.resultScope;
    const pinned =
      (rs instanceof ExactScope && rs.id === this.processor.id) ||
      task.options.inPlaceArgs !== undefined;
    const inline =
      kept === undefined && !pinned && bytes <= INLINE_RESULT_BYTES && typeof value !== 'function';
    if (!inline) this.store.set(task.id, value, bytes);
    else if (this.consumers.has(task.id)) {
      this.store.set(task.id, value, bytes);
      this.keptForConsumers.add(task.id);
    }
    const back = returnedArgs(task.options, task.args); // copy-out (returned-args.ts)
    this.logs.ran(task.id, task.options.name, this.processor.id, task.startedAt, ms);
    this.logs.ship(); // the task's own events go first
    const sent = inline ? this.wire(value) : undefined;
    if (back === undefined) this.out.push([DONE, task.id, bytes, ms, inline ? 1 : 0, sent]);
    else this.out.push([DONE, task.id, bytes, ms, inline ? 1 : 0, sent, back]);
    // While it works through a run of queued tasks, the runtime reports every few
    // milliseconds, not only when the run ends: the scheduler then sends more before it runs dry.
    if (end - this.out.sentAt >= REPORT_EVERY_MS) this.out.flush();
    if (waiters) this.wake(task.id, value, waiters);
  }

  /** Local successor execution: tasks sent ahead start the moment their input exists here. */
  private wake(key: number, value: unknown, waiters: WorkerTask[]): void {
    this.waitingFor.delete(key);
    for (const t of waiters) {
      const awaited = t.awaited!;
      for (let i = 0; i < awaited.length; i += 2) {
        if (awaited[i + 1] !== key) continue;
        if (this.store.backlog !== undefined && this.store.has(key)) {
          // A spilling store may write the value out (and drop this object) while t waits for
          // the disk: t reads it from the store as it starts, so it takes the live copy.
          (t.localReads ??= []).push(awaited[i], key);
        } else {
          t.args[awaited[i]] = value;
          this.consumed(key);
        }
      }
      if (--t.missing === 0 && t.pendingFetches === 0) this.run(t);
    }
  }

  private finishFail(task: WorkerTask, error: unknown): void {
    if (!this.running.delete(task.id)) return;
    this.stalls?.soon();
    // Tasks waiting here for its result are taken back by the scheduler (`withdraw`).
    this.waitingFor.delete(task.id);
    const ms = task.startedAt ? performance.now() - task.startedAt : 0;
    if (task.startedAt)
      this.logs.ran(task.id, task.options.name, this.processor.id, task.startedAt, ms);
    this.logs.ship();
    this.out.push({ op: 'fail', id: task.id, error: serializeError(error), ms });
  }

  private cancel(id: number): void {
    const task = this.running.get(id);
    if (!task) return;
    task.cancel(new CancelledError(`Task #${id} was cancelled`));
    this.finishFail(task, new CancelledError(`Task #${id} was cancelled`));
  }

  /**
   * The scheduler placed a task sent ahead here again elsewhere (an input it waited for is made
   * elsewhere now): drop it silently. It has not started: it waits for that input.
   */
  private withdraw(id: number): void {
    const task = this.running.get(id);
    if (task === undefined || task.startedAt !== 0) return;
    task.cancelled = true; // a wake-up or a fetch that still ends does not run it
    this.running.delete(id);
  }

  /** A result that cannot travel fails its task (or its fetch) instead of vanishing. */
  private unsendable(m: FromWorker, error: unknown): FromWorker | undefined {
    if (Array.isArray(m)) {
      const why = unsendableResult(`The result of task #${m[1]}`, m[5], error);
      return { op: 'fail', id: m[1], error: serializeError(why), ms: m[3] };
    }
    if (m.op === 'value') return unsendableValue(m, error);
    if (m.op === 'spawn') return { op: 'releaseTask', ids: [m.id] };
    return undefined;
  }

  /** Ends the runtime: running tasks are cancelled, results dropped. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.stalls?.stop();
    this.logs.stop(false);
    for (const t of this.running.values())
      t.cancel(new CancelledError('The worker runtime shut down'));
    this.running.clear();
    this.store.clear();
    this.requests.rejectAll(new CancelledError('The worker runtime shut down'));
  }
}

/** Starts a worker runtime on `transport` (call once per thread or process). */
export function startWorkerRuntime(
  transport: Transport,
  options: WorkerRuntimeOptions,
): WorkerRuntime {
  return new WorkerRuntime(transport, options);
}

/** The error answer to a fetch whose value cannot be sent (to the scheduler or to a peer). */
function unsendableValue(m: { req: number; key: number; value: unknown }, error: unknown) {
  const why = unsendableResult(`The result of task #${m.key}`, m.value, error);
  return { op: 'error' as const, req: m.req, error: serializeError(why) };
}

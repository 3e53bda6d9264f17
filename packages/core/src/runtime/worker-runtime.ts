import { isMainThread } from 'node:worker_threads';
import { defaultLocalStore, type LocalStore } from '../chunk/local-store.js';
import { sizeOf } from '../chunk/size-of.js';
import { CancelledError } from '../errors/errors.js';
import { serializeError } from '../errors/serialize-error.js';
import { ProcessSampler } from '../log/process-sampler.js';
import { setCurrentWorker } from '../processor/current-worker.js';
import type { Processor } from '../processor/processor.js';
import { ThreadProc } from '../processor/thread-proc.js';
import { Batcher } from '../protocol/batcher.js';
import { LENT_HOLDER, type LentChunk } from '../protocol/lent-chunk.js';
import { forEachRun, pushDone } from '../protocol/packs.js';
import { fromPlainOptions, fromRunOptions } from '../protocol/plain-options.js';
import {
  type ArgRefs,
  type FromWorker,
  INLINE_RESULT_BYTES,
  type PlainOptions,
  RUNS,
  type RunOptions,
  type RunPack,
  type ToWorker,
} from '../protocol/protocol.js';
import { Requests } from '../protocol/requests.js';
import type { Transport } from '../protocol/transport.js';
import { ExactScope } from '../scope/exact-scope.js';
import { isStreamDescriptor, registerStepAdapter } from '../stream/step-adapter.js';
import { asyncRunSettled, callInFrame } from '../task/frame.js';
import { type GroupParts, isGroupParts, storeParts } from '../task/group-parts.js';
import { IdTable } from '../task/id-table.js';
import { isThenable } from '../task/is-thenable.js';
import { NO_OPTIONS } from '../task/options.js';
import { returnedArgs } from '../task/returned-args.js';
import { reserveTaskIds } from '../task/spawn-task.js';
import {
  type FnRef,
  FunctionDecoder,
  FunctionEncoder,
  registerModuleFunctions,
} from '../travel/function-ref.js';
import { BlockPool, PooledStore } from './block-pool.js';
import { type ControlParts, handleControl } from './control-messages.js';
import { InPlaceBegins } from './in-place-begins.js';
import { countLocalConsumers } from './local-consumers.js';
import { LocalInputs } from './local-inputs.js';
import { LogShipper } from './log-shipper.js';
import { OwnedTasks } from './owned-tasks.js';
import { PeerLinks } from './peer-links.js';
import { ProxyOwner } from './proxy-owner.js';
import { ResultServer } from './result-server.js';
import { decodeRun, RunRefused } from './run-record.js';
import { holdsOnlyWaitingTasks, StallWatch } from './stall-watch.js';
import { TaskQueue } from './task-queue.js';
import { TurnShare } from './turn-share.js';
import { unsendableMessage } from './unsendable-result.js';
import type { ValueAdapter } from './value-adapter.js';
import { wireValue } from './wire-value.js';
import type { WorkerRuntimeOptions } from './worker-runtime-options.js';
import { WorkerTask } from './worker-task.js';

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

/** What `sendable` answers for a result that cannot travel (the task was failed instead). */
const UNSENDABLE: unique symbol = Symbol('unsendable');

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
  /**
   * Released blocks' memory for new blocks: with the default store only (it sees every read)
   * and no value adapter (its wrapper of a task's function could keep what the task made).
   */
  private readonly pool: BlockPool | undefined;
  /** The results kept here as inputs of the tasks here (local successor execution). */
  private readonly inputs: LocalInputs;
  private readonly running = new IdTable<WorkerTask>();
  private readonly out: Batcher<FromWorker>;
  private readonly requests = new Requests();
  private readonly decoder: FunctionDecoder;
  /** Answers fetches of the results kept here (the scheduler's and peers'). */
  private readonly server: ResultServer;
  /** Direct links to peer runtimes. */
  private readonly peers: PeerLinks;
  readonly processor: Processor;
  readonly holder: string;
  private readonly modules: Map<string, Record<string, unknown>>;
  private readonly runningTask: Float64Array | undefined;
  /** Tells the scheduler that in-place tasks began (`in-place-begins.ts`). */
  private readonly begins: InPlaceBegins;
  /** The scheduler proxy that tasks spawned here go to. */
  readonly owner: ProxyOwner;
  private closed = false;
  /** Set when the scheduler asked which tasks started (its context closes): none starts now. */
  private ending = false;
  private readonly adapter: ValueAdapter | undefined;
  /** Removes the adapter from the streaming steps' registry (at shutdown). */
  private readonly forgetStepAdapter: (() => void) | undefined;
  private readonly stalls: StallWatch | undefined;
  /** Batches received from the scheduler (a stall report says how many it had seen). */
  private heardBatches = 0;
  /** Tasks run per turn of the event loop; what waits for the next. */
  private readonly turn: TurnShare;
  /** Tasks running synchronously now (a task blocked on an answer polls for messages inside it). */
  private inTask = 0;
  /** Tasks whose inputs all exist now, waiting for the loop of `runWoken` on the stack. */
  private readonly woken = new TaskQueue();
  /** Whether a `runWoken` loop is on the stack. */
  private runningWoken = false;
  /** This thread's log events, sent to the scheduler while it logs. */
  private readonly logs: LogShipper;
  /** What the handling of the scheduler's other messages uses (`handleControl`). */
  private readonly control: ControlParts;

  constructor(transport: Transport, options: WorkerRuntimeOptions) {
    if (options.store === undefined && options.adapter === undefined) {
      this.pool = new BlockPool();
      this.store = new PooledStore(this.pool);
    } else this.store = options.store ?? defaultLocalStore();
    this.inputs = new LocalInputs(this.store);
    this.adapter = options.adapter;
    this.processor = options.processor ?? new ThreadProc(options.worker, options.thread);
    if (this.adapter !== undefined) {
      this.forgetStepAdapter = registerStepAdapter(this.processor.id, this.adapter);
    }
    this.holder = this.processor.id;
    this.runningTask = options.runningTask;
    if (options.setProcessWorker) setCurrentWorker(options.worker);
    if (options.idBase !== undefined) reserveTaskIds(options.idBase);
    this.modules = options.modules ?? new Map();
    this.decoder = new FunctionDecoder((m) => this.modules.get(m));
    this.out = new Batcher(transport);
    this.turn = new TurnShare(
      (task) => {
        if (this.running.get(task.id) === task) this.run(task);
      },
      (m) => this.handle(m),
    );
    this.out.onUnsendable = unsendableMessage;
    this.begins = new InPlaceBegins(this.out, options.runningTask);
    this.server = new ResultServer({
      store: this.store,
      holder: this.holder,
      adapter: this.adapter,
      out: this.out,
      running: this.running,
      consumers: this.inputs.consumers,
      keptForConsumers: this.inputs.keptForConsumers,
    });
    this.peers = new PeerLinks(this.server, {
      heard: () => {
        this.turn.begin();
        this.stalls?.soon();
      },
      ready: (task) => this.run(task),
      failed: (task, error) => this.finishFail(task, error),
    });
    this.owner = new ProxyOwner(
      this.out,
      new FunctionEncoder(),
      this.requests,
      this.processor,
      transport.sharesMemory === true || options.blockingAnswers === true,
      options.blockingAnswers ?? !isMainThread,
    );
    // Tasks spawned here that may run here are placed here (not where a value adapter wraps
    // every task: those go through the scheduler, which knows the adapter's rules).
    if (this.adapter === undefined) {
      this.owner.owned = new OwnedTasks(this.processor, this.owner, {
        enter: (agent) => {
          this.inTask++;
          if (this.runningTask !== undefined) this.runningTask[0] = agent;
        },
        leave: () => {
          this.inTask--;
          if (this.runningTask !== undefined) this.runningTask[0] = 0;
        },
        report: (finished, failed) => this.out.push({ op: 'owned', finished, failed }),
      });
    }
    this.logs = new LogShipper(
      this.out,
      // The runtime on a worker process's main thread speaks for the process's memory.
      options.setProcessWorker && isMainThread ? new ProcessSampler() : undefined,
    );
    if (options.watchStalls) {
      this.stalls = new StallWatch(
        () => holdsOnlyWaitingTasks(this.running),
        (stalled) => {
          this.out.push({ op: 'stalled', stalled, seen: this.heardBatches });
          this.out.flush();
        },
        undefined,
        () => this.running.size === 0,
      );
    }
    this.control = {
      server: this.server,
      store: this.store,
      out: this.out,
      requests: this.requests,
      logs: this.logs,
      transport,
      running: this.running,
      fail: (task, error) => this.finishFail(task, error),
      end: () => {
        this.ending = true;
      },
    };
    transport.onMessage((batch) => {
      this.heardBatches++;
      countLocalConsumers(batch as ToWorker[], this.holder, this.inputs.consumers);
      this.turn.received(batch as ToWorker[], this.inTask > 0);
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
    this.peers.connect(holder, transport);
  }

  private handle(m: ToWorker): void {
    if (Array.isArray(m)) {
      if (m[0] === RUNS) forEachRun(m as RunPack, this.accept);
      else this.accept(m[1], m[2], m[3], m[4], m[5], m[6]);
    } else handleControl(m, this.control);
  }

  /** Task `id` came to run here (the fields of a `RunRecord`). */
  private readonly accept = (
    id: number,
    fnRef: FnRef | number,
    args: unknown[],
    refs?: ArgRefs,
    options?: RunOptions,
    inherited?: PlainOptions,
  ): void => {
    const fn = decodeRun(this.decoder, fnRef, args);
    if (fn instanceof RunRefused) {
      this.refuse(id, fn);
      return;
    }
    const task = new WorkerTask(
      id,
      fn,
      args,
      fromRunOptions(options),
      inherited === undefined ? NO_OPTIONS : fromPlainOptions(inherited),
      this.processor,
      this.owner,
    );
    if (refs !== undefined) this.takeInputs(task, args, refs);
    this.running.set(task.id, task);
    if (task.missing === 0 && task.pendingFetches === 0) this.run(task);
  };

  /** Task `id`'s function or an argument could not be rebuilt here: it fails unrun. */
  private refuse(id: number, refused: RunRefused): void {
    this.out.push({ op: 'fail', id, error: serializeError(refused.error), ms: 0 });
  }

  /**
   * Gives `task` the inputs that `refs` name: chunks lent by the scheduler borrowed, results
   * here taken, results of other runtimes fetched from them. (An indexed loop: `for…of` with
   * destructuring is iterator bytecode several times longer, run per task.)
   */
  private takeInputs(task: WorkerTask, args: unknown[], refs: ArgRefs): void {
    for (let i = 0; i < refs.length; i++) {
      const ref = refs[i];
      const index = ref[0];
      const holder = ref[2];
      if (holder === LENT_HOLDER) {
        task.args[index] = this.owner.borrow(args[index] as LentChunk);
      } else if (holder === '' || holder === this.holder) this.inputs.take(task, index, ref[1]);
      else this.peers.fetchInput(task, index, ref[1], holder);
    }
  }

  /**
   * Runs `task` now, unless it was cancelled, waits for the next turn or for the store's
   * writes, or an input it reads here cannot be read. The rare branches live in methods of
   * their own: V8 weighs a function's whole bytecode when it decides to optimise it, so
   * this per-task path is optimised after fewer tasks.
   */
  private run(task: WorkerTask): void {
    if (task.cancelled || this.ending) return;
    let now = performance.now();
    if (this.turn.defers(task, now)) return;
    const backlog = this.store.backlog?.();
    if (backlog !== undefined) {
      this.runAfter(task, backlog);
      return;
    }
    if (task.localReads !== undefined) {
      if (!this.readLocalInputs(task)) return;
      now = performance.now(); // reading may have taken a while (from disk)
    }
    task.startedAt = now; // one clock read per task for the yield check and the start
    if (task.options.inPlace === true) this.begins.begin(task.id);
    const slot = this.runningTask;
    if (slot !== undefined) slot[0] = task.id;
    let result: unknown;
    let fn = task.fn;
    const pool = this.pool;
    this.inTask++;
    const before = pool?.begin(fn);
    try {
      if (this.adapter !== undefined) fn = this.adapted(task);
      result = callInFrame(task, fn as Function, task.args);
    } catch (error) {
      this.threw(task, error, before);
      return;
    }
    const handed = pool?.end(before);
    this.inTask--;
    if (slot !== undefined) slot[0] = 0;
    if (isThenable(result)) this.finishWhenSettled(task, fn, result);
    else this.finishDone(task, result, handed);
  }

  /**
   * The store is over its memory limit and writing to disk: `task` starts once a write is
   * done (`backlog` settles), if it is still to run here.
   */
  private runAfter(task: WorkerTask, backlog: Promise<unknown>): void {
    backlog.then(() => {
      if (this.running.get(task.id) === task) this.run(task);
    });
  }

  /**
   * Reads `task`'s inputs kept here (from memory or disk) into its arguments. False, with the
   * task failed, when one cannot be read.
   */
  private readLocalInputs(task: WorkerTask): boolean {
    const unread = this.inputs.readAtStart(task);
    if (unread === undefined) return true;
    this.finishFail(task, unread.error);
    return false;
  }

  /**
   * The function to call for `task` under the value adapter: its wrapper of the task's
   * function, except for a streaming task, whose driver wraps each step instead
   * (step-adapter.ts).
   */
  private adapted(task: WorkerTask): Function {
    const adapter = this.adapter;
    if (adapter?.wrap && !isStreamDescriptor(task.args[0])) return adapter.wrap(task.fn as never);
    return task.fn;
  }

  /**
   * `task`'s function threw `error` (or its adapter's wrapping did): the bookkeeping of a
   * running task undone (`before`: the block pool's mark at its start), and the task failed.
   */
  private threw(task: WorkerTask, error: unknown, before: BlockPool | undefined): void {
    this.pool?.end(before);
    this.inTask--;
    const slot = this.runningTask;
    if (slot !== undefined) slot[0] = 0;
    this.finishFail(task, error);
  }

  /** `task`'s function (`fn`, as called) returned a promise: it ends when `result` settles. */
  private finishWhenSettled(task: WorkerTask, fn: Function, result: PromiseLike<unknown>): void {
    result.then(
      (v) => {
        asyncRunSettled(fn);
        this.finishDone(task, v);
      },
      (e) => {
        asyncRunSettled(fn);
        this.finishFail(task, e);
      },
    );
  }

  /**
   * Task `task` returned `value`; `handed`: the block memory its own function took from the
   * pool, when it returned synchronously (such a result's memory may go back to the pool).
   */
  private finishDone(task: WorkerTask, value: unknown, handed?: SharedArrayBuffer[]): void {
    if (!this.running.delete(task.id) || task.cancelled) {
      this.begins.ended(task.id, true);
      return;
    }
    this.stalls?.soon();
    const end = performance.now();
    const ms = end - task.startedAt;
    const parts = isGroupParts(value); // each output kept under its own key, the report inline
    if (parts) value = storeParts(this.store, value as GroupParts, this.pool);
    const kept = this.adapter?.keptBytes?.(value);
    const bytes = kept ?? sizeOf(value);
    const waiters = this.inputs.waitingFor.get(task.id);
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
      this.store.set(task.id, value, bytes);
      // Its memory returns to the pool if no one reads it before its release (block-pool.ts).
      const alone = !pinned && waiters === undefined && !this.inputs.consumers.has(task.id);
      this.pool?.made(task.id, value, alone ? handed : undefined);
    } else if (this.inputs.consumers.has(task.id)) {
      this.store.set(task.id, value, bytes);
      this.inputs.keptForConsumers.add(task.id);
    }
    const back = returnedArgs(task.options, task.args); // copy-out (returned-args.ts)
    this.logs.ran(task, this.processor.id, ms);
    this.logs.ship(); // the task's own events go first
    let sent: unknown;
    if (inline) {
      sent = this.sendable(task, value, ms, waiters);
      if (sent === UNSENDABLE) return;
    }
    this.begins.ended(task.id, false);
    // A long task's report leaves at once (below): it needs no flush scheduled for it.
    const long = ms >= REPORT_LONG_MS;
    if (long) this.out.sendingNow();
    pushDone(this.out, task.id, bytes, ms, inline ? 1 : 0, sent, back);
    // While it works through a run of queued tasks, the runtime reports every few
    // milliseconds, not only when the run ends: the scheduler then sends more before it runs dry.
    // Counted from the oldest report waiting, not from the last batch sent: a worker idle
    // before this run would otherwise send its first report alone, a second message per batch.
    if (long || end - this.out.openedAt >= REPORT_EVERY_MS) this.out.flush();
    if (task.held !== undefined) this.inputs.unhold(task);
    if (waiters) this.wake(task.id, value, waiters);
  }

  /**
   * Whether `task`'s result must stay on this processor because its resultScope is exactly
   * this processor (pinned state). `instanceof` only for a scope: on a class named by the
   * build it is slow even for undefined.
   */
  private pinnedHere(task: WorkerTask): boolean {
    const rs = task.options.resultScope;
    return rs !== undefined && rs instanceof ExactScope && rs.id === this.processor.id;
  }

  /**
   * `value`, a small result of `task`, as it travels inline with the completion report; or
   * `UNSENDABLE` when it cannot travel, with the task reported failed (after `ms`) and its
   * local `waiters` given the value.
   */
  private sendable(task: WorkerTask, value: unknown, ms: number, waiters?: WorkerTask[]): unknown {
    try {
      return wireValue(this.adapter, value, task.id);
    } catch (error) {
      this.out.push({ op: 'fail', id: task.id, error: serializeError(error), ms });
      if (task.held !== undefined) this.inputs.unhold(task);
      if (waiters) this.wake(task.id, value, waiters);
      return UNSENDABLE;
    }
  }

  /** Local successor execution: tasks sent ahead start the moment their input exists here. */
  private wake(key: number, value: unknown, waiters: WorkerTask[]): void {
    this.inputs.arrived(key, value, waiters, this.runWoken);
  }

  /**
   * Runs a task sent ahead whose inputs all exist now, after the task that made the last one
   * has returned, not inside it: a chain would otherwise nest each task in the one before it,
   * thousands of frames deep by the end of a turn (each scavenge scans them all, and a fast
   * chain can overflow the stack). The outermost call runs them one after another, in order.
   */
  private readonly runWoken = (task: WorkerTask): void => {
    if (this.runningWoken) {
      this.woken.push(task);
      return;
    }
    this.runningWoken = true;
    try {
      for (let t: WorkerTask | undefined = task; t !== undefined; t = this.woken.shift())
        this.run(t);
    } finally {
      this.runningWoken = false;
      this.woken.clear();
    }
  };

  private finishFail(task: WorkerTask, error: unknown): void {
    this.begins.ended(task.id, true);
    if (!this.running.delete(task.id)) return;
    if (task.held !== undefined) this.inputs.unhold(task);
    this.stalls?.soon();
    // Tasks waiting here for its result are taken back by the scheduler (`withdraw`).
    this.inputs.waitingFor.delete(task.id);
    const ms = task.startedAt ? performance.now() - task.startedAt : 0;
    if (task.startedAt) this.logs.ran(task, this.processor.id, ms);
    this.logs.ship();
    this.out.push({ op: 'fail', id: task.id, error: serializeError(error), ms });
  }

  /** Ends the runtime: running tasks are cancelled, results dropped. */
  shutdown(): void {
    if (this.closed) return;
    this.closed = true;
    this.forgetStepAdapter?.();
    this.stalls?.stop();
    this.logs.stop(false);
    for (const t of this.running.values())
      t.cancel(new CancelledError('The worker runtime shut down'));
    this.running.clear();
    this.owner.owned?.close();
    this.turn.clear();
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

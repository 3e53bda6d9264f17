import { MessageChannel, type ResourceLimits, Worker } from 'node:worker_threads';
import { WorkerLostError } from '../errors/errors.js';
import { deserializeError } from '../errors/serialize-error.js';
import { recordEvents } from '../log/event-log.js';
import type { Processor } from '../processor/processor.js';
import type { AdminFromWorker, AdminToWorker } from '../protocol/admin-protocol.js';
import type { PluginSpec } from '../protocol/plugin-spec.js';
import { portTransport } from '../protocol/port-transport.js';
import { runningTaskMemory } from '../protocol/running-task-memory.js';
import type { PeerPort, ThreadStartData } from '../protocol/thread-start-data.js';
import type { Transport } from '../protocol/transport.js';
import type { PluginHost } from '../registry/plugin.js';
import type { WorkerConnection } from '../sched/executors/worker-connection/worker-connection.js';
import { ModuleLoads } from './module-loads.js';
import { threadExecArgv } from './worker-exec-argv.js';
import type { PooledMember, PooledWorker } from './worker-pool.js';

/** How to start one `ThreadHost`. */
export interface ThreadHostOptions<P extends Processor = Processor> {
  /** The processor the thread runs tasks as (its id names the thread). */
  processor: P;
  /** The entry script the thread runs (plain JS, loaded by URL). */
  entry: URL;
  /**
   * The thread number whose task-id range tasks spawned in the thread draw from: ids start at
   * `(worker * 1024 + thread) * 2 ** 32`; one no other thread of the process uses (threads:
   * 2 …; `@dtask/gpu-tfjs`: 512 + device, `@dtask/gpujs`: 768 + device,
   * `@dtask/example-accelerator`: 896 + device).
   */
  thread: number;
  /** The plugin's own start-up data (structured-cloneable; `ThreadStartData.data`). */
  data?: unknown;
  /**
   * The worker-side plugins the thread re-creates: a list sent at start, or a function that
   * answers the thread's `plugins?` when it asks (so that plugins added later count).
   */
  plugins: readonly PluginSpec[] | (() => PluginSpec[]);
  /** `everywhere` modules to load in the thread before it serves, by URL. */
  modules: string[];
  /** Links to peer runtimes, transferred to the thread (default none). */
  peers?: PeerPort[];
  /** Makes the scheduler's connection to the thread (the plugin host's `connectWorker`). */
  connect: PluginHost['connectWorker'];
  /** Tasks sent ahead beyond the one running. */
  queueAhead: number;
  /** How long a cancelled running task may take to stop before the thread is ended (ms). */
  cancelGraceMs: number;
  /** Whether the thread has a peer link to the runtime behind `other` (default: none). */
  linkedTo?: (other: WorkerConnection) => boolean;
  /** The thread's `resourceLimits`. */
  resourceLimits?: ResourceLimits;
  /** The thread's node flags (default `threadExecArgv()`). */
  execArgv?: string[];
  /**
   * Whether the entry answers `started` (with its report) or `startFailed` once its start is
   * over (`runDedicatedThread` does): `started` waits for that. Otherwise the thread has
   * started once it is online.
   */
  reportsStart: boolean;
  /**
   * Called once when the thread is gone (crash, exit, terminate), whichever is noticed first:
   * its channel closing or its `exit` event (`reason`: which). Called before the tasks it held
   * are handed back, so that its processor can be replaced or removed first.
   */
  onLost(host: ThreadHost<unknown, P>, reason: string): void;
}

/**
 * The main thread's side of one `node:worker_threads` worker that runs core's worker runtime
 * (a threads plugin's thread, a GPU plugin's dedicated thread): starts it on its entry with one
 * start shape (`ThreadStartData`), connects the scheduler's `WorkerConnection` over a
 * `MessagePort`, answers its admin messages (the plugins it asks for, `everywhere` loads, the
 * start it reports, log events it relays, recorded as the processor's), hands it peer links, and
 * notices once when it is gone. `started` resolves once it has started (with the entry's report
 * where it reports one) or rejects with what stopped it (the entry's error, class and code
 * kept, which also ends it; a `WorkerLostError` when it exited first). Referenced while it
 * starts and while it loads modules, so that awaiting either keeps node alive; idle, it does
 * not. A `WorkerPool` runs it, and replaces it when it dies.
 */
export class ThreadHost<R = void, P extends Processor = Processor> implements PooledWorker {
  /** The processor the thread runs tasks as. */
  readonly proc: P;
  /** The scheduler's connection to the thread's runtime (its executor). */
  readonly connection: WorkerConnection;
  /** Resolves once the thread has started (see the class); rejects with what stopped it. */
  readonly started: Promise<R>;
  /** Set once the thread is gone: its channel closed or it exited, whichever came first. */
  exited = false;
  /** The thread's exit code, once it has exited. */
  exitCode: number | undefined;
  private up = false;
  private readonly thread: Worker;
  private readonly transport: Transport;
  private readonly loads: ModuleLoads;

  constructor(private readonly options: ThreadHostOptions<P>) {
    const proc = options.processor;
    this.proc = proc;
    this.loads = new ModuleLoads(proc.id);
    const channel = new MessageChannel();
    const runningTask = runningTaskMemory();
    const peers = options.peers ?? [];
    const plugins = options.plugins;
    const workerData: ThreadStartData<unknown> = {
      worker: proc.worker,
      thread: options.thread,
      processor: proc.id === `thread:${proc.worker}:${options.thread}` ? undefined : proc.id,
      port: channel.port2,
      runningTask,
      modules: options.modules,
      plugins: typeof plugins === 'function' ? undefined : [...plugins],
      peers,
      data: options.data,
    };
    this.thread = new Worker(options.entry, {
      workerData,
      transferList: [channel.port2, ...peers.map((p) => p.port)],
      resourceLimits: options.resourceLimits,
      execArgv: options.execArgv ?? threadExecArgv(),
      name: `dtask ${proc.id}`,
    });
    this.transport = portTransport(channel.port1);
    this.connection = options.connect(this.transport, {
      processor: proc,
      runningTask,
      queueAhead: options.queueAhead,
      cancelGraceMs: options.cancelGraceMs,
      terminate: () => void this.thread.terminate(),
      linkedTo: options.linkedTo,
      onLost: () => this.gone('its channel closed'),
    });
    let start: (r: R) => void = () => {};
    let fail: (e: unknown) => void = () => {};
    this.started = new Promise((resolve, reject) => {
      start = resolve;
      fail = reject;
    });
    this.started.catch(() => {});
    this.thread.on('message', (m: AdminFromWorker<R>) => {
      if (m.op === 'plugins?' && typeof plugins === 'function') this.sendPlugins(plugins());
      else if (m.op === 'started') start(m.report);
      else if (m.op === 'startFailed') {
        fail(deserializeError(m.error));
        void this.thread.terminate();
      } else if (m.op === 'event') {
        const { kind, time, bytes, detail } = m;
        recordEvents([{ kind, time, bytes, detail, processor: proc.id, worker: proc.worker }]);
      } else if ((m.op === 'loaded' || m.op === 'loadFailed') && this.loads.answer(m)) {
        this.updateRef();
      }
    });
    if (!options.reportsStart) this.thread.once('online', () => start(undefined as R));
    this.thread.on('error', (e) => fail(e)); // after the start, reported through 'exit'
    this.thread.once('exit', (code) => {
      this.exitCode = code;
      fail(new WorkerLostError(`${proc.id} exited with code ${code} while starting`));
      this.transport.close(); // the connection hands its tasks back (after `gone`)
      this.gone(`exit code ${code}`);
    });
    // Referenced while it starts (and while it loads modules); idle afterwards, it does not
    // keep node alive. (Set after adding the 'message' listener, which references a Worker.)
    this.started.then(
      () => {
        this.up = true;
        this.updateRef();
      },
      () => {},
    );
  }

  private updateRef(): void {
    if (this.exited) return;
    if (!this.up || this.loads.size > 0) this.thread.ref();
    else this.thread.unref();
  }

  private gone(reason: string): void {
    if (this.exited) return;
    this.exited = true;
    // A load cut short by the thread's end fails: the module may be what ended it (the pool
    // then stops loading it on new threads, so they do not die the same way).
    this.loads.failAll(
      (url) =>
        new WorkerLostError(
          `Thread ${this.proc.id} ended (exit code ${this.exitCode ?? 'unknown'}) while loading ` +
            `${url} for everywhere(). Check that the module can be imported in a worker thread ` +
            '(no process.exit or main-thread-only code at import); it is not loaded on new threads.',
        ),
    );
    // Its channel may close before the thread has quite ended: make sure it does.
    if (this.exitCode === undefined) void this.thread.terminate();
    this.options.onLost(this as ThreadHost<unknown, P>, reason);
  }

  /** Its processor with the scheduler's connection (the pool adds and removes it). */
  processors(): readonly PooledMember[] {
    return [{ proc: this.proc, connection: this.connection }];
  }

  /**
   * Whether it served tasks before it ended (its runtime said it is ready, or its entry
   * reported its start): a death before that is a failed start.
   */
  get wasReady(): boolean {
    return this.connection.wasReady || (this.options.reportsStart && this.up);
  }

  /** Whether an `everywhere` module is being loaded here (such a thread is not retired). */
  get loading(): boolean {
    return this.loads.size > 0;
  }

  /** Sends a peer link to this thread's runtime. */
  addPeer(peer: PeerPort): void {
    this.thread.postMessage(
      { op: 'peer', holder: peer.holder, port: peer.port } satisfies AdminToWorker,
      [peer.port],
    );
  }

  /** Loads an `everywhere` module in the thread (keeping node alive until it has). */
  loadModule(url: string): Promise<void> {
    if (this.exited) return Promise.resolve();
    const loaded = this.loads.request(url, (m) => this.thread.postMessage(m));
    this.updateRef();
    return loaded;
  }

  /** Answers the thread's start-up question: the plugins it re-creates before serving tasks. */
  private sendPlugins(specs: PluginSpec[]): void {
    try {
      this.thread.postMessage({ op: 'plugins', specs } satisfies AdminToWorker);
    } catch (error) {
      // A spec that cannot be cloned: start the thread without plugins rather than hang it.
      process.emitWarning(`dtask: plugin specs cannot reach ${this.proc.id}: ${error}`);
      this.thread.postMessage({ op: 'plugins', specs: [] } satisfies AdminToWorker);
    }
  }

  /**
   * Ends the thread at once, as a crash would (its tasks count as lost with it): what a test
   * does to see the thread replaced.
   */
  kill(): void {
    void this.thread.terminate();
  }

  /** Ends the thread: closes the connection (its tasks go back to the scheduler), then exits. */
  async terminate(): Promise<void> {
    if (this.exited) return;
    await this.connection.close();
    await this.thread.terminate();
  }

  /** The underlying `Worker` (tests use it to end a thread or watch it exit). */
  get worker(): Worker {
    return this.thread;
  }
}
